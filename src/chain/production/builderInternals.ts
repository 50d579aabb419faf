import type { TypedTransaction } from '@ethereumjs/tx'
import type { BlockBuilder, RunTxResult } from '@ethereumjs/vm'

/**
 * BlockBuilder.addTransaction rebuilds a block of every transaction added so far before running the next one,
 * which makes a block of n transactions cost O(n²) (25 s for 800 transfers, measured). The producer (and
 * eth_simulateV1) runs each
 * transaction itself, once, and hands the builder the results it would have recorded, so that build() still
 * computes the transactions and receipts roots, the bloom and the EIP-7685 requests. These are the builder's
 * fields in @ethereumjs/vm 10.1, pinned; createBuilding checks they are there.
 */
export type BuilderInternals = {
  transactions: TypedTransaction[]
  transactionResults: RunTxResult[]
  gasUsed: bigint
  blobGasUsed: bigint
  _minerValue: bigint
}

export function builderInternals(builder: BlockBuilder): BuilderInternals {
  const internals = builder as unknown as BuilderInternals
  if (!Array.isArray(internals.transactions) || !Array.isArray(internals.transactionResults) || typeof internals._minerValue !== 'bigint') {
    throw new Error('@ethereumjs/vm BlockBuilder no longer has the fields the producer relies on')
  }
  return internals
}
