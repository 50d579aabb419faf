import { bytesToHex } from '@ethereumjs/util'

import type { Block, BlockHeader } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Hex } from '../../hex.ts'
import type { StateReader } from '../state/types.ts'
import type { BlockEnv, Receipt } from '../types.ts'

/**
 * The logs bloom of a receipt without logs: all 256 bytes zero. Most receipts (every plain transfer) have it, so it
 * is one shared string rather than 514 characters per receipt, and the store leaves it out.
 */
export const EMPTY_BLOOM = `0x${'00'.repeat(256)}` as Hex

/** A sealed block as the engine holds it: the block itself, with everything its transactions produced. */
export type SealedBlock = {
  block: Block
  hash: Hex
  number: bigint
  senders: Hex[]
  receipts: Receipt[]
}

/**
 * The pending block as the engine holds it, as of the newest flashblock: the N+1 environment, the pre-confirmed
 * transactions and their receipts, the state after them, and the header the block would seal with if nothing else
 * arrived. Replaced whole at every flashblock, so a reader holding one never sees half of the next.
 */
export type PendingSnapshot = {
  env: BlockEnv
  /** -1 before the block's first flashblock. */
  flashblockIndex: number
  /** Computed before the flashblock is published, so every receipt a reader sees has its block hash. */
  header: BlockHeader
  hash: Hex
  transactions: TypedTransaction[]
  senders: Hex[]
  receipts: Receipt[]
  state: StateReader
}

const positions = new WeakMap<PendingSnapshot, Map<Hex, number>>()

/**
 * Where a transaction sits in the pending block, found by hash. The index is built on first use, once per flashblock
 * (a flashblock is never changed), so receipt polls and admission checks do not scan every pre-confirmed transaction.
 */
export function pendingIndexOf(pending: PendingSnapshot, hash: Hex): number | undefined {
  let index = positions.get(pending)
  if (index === undefined) {
    index = new Map(pending.transactions.map((tx, i) => [bytesToHex(tx.hash()) as Hex, i]))
    positions.set(pending, index)
  }
  return index.get(hash.toLowerCase() as Hex)
}
