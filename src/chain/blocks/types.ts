import { bytesToHex } from '@ethereumjs/util'

import type { Block } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Hex, StateReader } from '../state/types.ts'

export type Log = { address: Hex; topics: Hex[]; data: Hex }

/** What execution decided about one transaction; positions and hashes come from the block that holds it. */
export type Receipt = {
  /** 1 success, 0 failure. Absent before Byzantium, where `root` is set instead. */
  status?: 0 | 1
  root?: Hex
  cumulativeGasUsed: bigint
  gasUsed: bigint
  logs: Log[]
  logsBloom: Hex
  contractAddress: Hex | null
  effectiveGasPrice: bigint
  blobGasUsed?: bigint
  blobGasPrice?: bigint
}

/**
 * The logs bloom of a receipt without logs: all 256 bytes zero. Most receipts (every plain transfer) have it, so it
 * is one shared string rather than 514 characters per receipt, and the store leaves it out.
 */
export const EMPTY_BLOOM = `0x${'00'.repeat(256)}` as Hex

/** A sealed block with everything its transactions produced. */
export type SealedBlock = {
  block: Block
  hash: Hex
  number: bigint
  senders: Hex[]
  receipts: Receipt[]
}

/** The block environment of a block: what BLOCKHASH-free execution needs to know about it. */
export type BlockEnv = {
  number: bigint
  timestamp: bigint
  gasLimit: bigint
  baseFeePerGas: bigint | undefined
  coinbase: Hex
  prevRandao: Hex
  excessBlobGas: bigint | undefined
  parentHash: Hex
  parentBeaconBlockRoot: Hex | undefined
}

/**
 * The pending block as of the newest flashblock: the N+1 environment, the pre-confirmed transactions and their
 * receipts, and the state after them. Replaced whole at every flashblock, so a reader holding one never sees
 * half of the next.
 */
export type PendingBlock = {
  env: BlockEnv
  flashblockIndex: number
  transactions: TypedTransaction[]
  senders: Hex[]
  receipts: Receipt[]
  state: StateReader
}

const positions = new WeakMap<PendingBlock, Map<Hex, number>>()

/**
 * Where a transaction sits in the pending block, found by hash. The index is built on first use, once per flashblock
 * (a flashblock is never changed), so receipt polls and admission checks do not scan every pre-confirmed transaction.
 */
export function pendingPosition(block: PendingBlock, hash: Hex): number | undefined {
  let index = positions.get(block)
  if (index === undefined) {
    index = new Map(block.transactions.map((tx, i) => [bytesToHex(tx.hash()) as Hex, i]))
    positions.set(block, index)
  }
  return index.get(hash.toLowerCase() as Hex)
}
