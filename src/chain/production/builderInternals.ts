import { buildBlock } from '@ethereumjs/vm'

import type { Block, HeaderData } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { BlockBuilder, RunTxResult, VM } from '@ethereumjs/vm'
import type { BlockEnv } from '../types.ts'

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

/** The header fields a block's environment sets; the roots and what execution sums up come later. */
export function envHeaderData(env: BlockEnv): HeaderData {
  return {
    number: env.number,
    timestamp: env.timestamp,
    gasLimit: env.gasLimit,
    baseFeePerGas: env.baseFeePerGas,
    coinbase: env.coinbase,
    mixHash: env.prevRandao,
    difficulty: 0n,
    excessBlobGas: env.excessBlobGas,
    parentBeaconBlockRoot: env.parentBeaconBlockRoot,
  }
}

/**
 * A builder for a block on `parent` with environment `env`, as the producer and eth_simulateV1 start one: the
 * system calls (EIP-4788, EIP-2935) run, and the header is not checked against consensus rules.
 */
export function startBuilder(vm: VM, parent: Block, env: BlockEnv): Promise<BlockBuilder> {
  return buildBlock(vm, {
    parentBlock: parent,
    headerData: envHeaderData(env),
    withdrawals: vm.common.isActivatedEIP(4895) ? [] : undefined,
    blockOpts: { putBlockIntoBlockchain: false, skipConsensusFormatValidation: true },
  })
}
