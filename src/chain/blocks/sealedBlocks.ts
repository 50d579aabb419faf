import { bytesToHex, hexToBytes } from '@ethereumjs/util'

import type { SealedBlock } from './types.ts'
import type { Hex } from '../../hex.ts'
import type { Receipt } from '../types.ts'

/**
 * Transactions the newest blocks may hold whole between them (the head is always held). A decoded transaction with
 * its receipt and sender costs about 2.5 kB of heap, so holding every block made the heap grow by 16 MB per 6400
 * transactions, for as long as the chain ran. 4096 is two full 30M-gas blocks of transfers, far more than the
 * blocks the pending tag, receipt polls and the answer cache touch.
 */
export const WHOLE_TRANSACTIONS = 4096
/**
 * Transactions the older blocks read back from the store may hold whole between them, the least recently used
 * given up first. They are kept apart from the newest, so that a scan over history does not push those out.
 */
export const READ_BACK_TRANSACTIONS = 1024

const NO_TRANSACTIONS: Hex[] = []

/** What eth_getLogs needs of a sealed block: less than the whole block, and cheaper to read back. */
export type BlockLogs = {
  number: bigint
  hash: Hex
  timestamp: bigint
  receipts: Receipt[]
  /** The hash of transaction `index`. */
  transactionHash(index: number): Hex
}

/**
 * The sealed chain. Every block's hash (and its logs bloom, if it logged) stays in memory; the newest blocks are held
 * whole, and an older one is decoded again from the store when a request names it, then held for a while.
 */
export type SealedBlocks = {
  /** The first block held: 0, or a fork's fork block, the blocks before which are the upstream's (docs/fork.md). */
  readonly first: bigint
  /** Blocks on the chain, the first included. */
  readonly count: number
  head(): SealedBlock
  /** Appends the next block. It must be in the store already, since it may be read back from there. */
  add(sealed: SealedBlock): void
  byNumber(number: bigint): SealedBlock | undefined
  byHash(hash: Hex): SealedBlock | undefined
  /** The number of the block with this hash, without reading the block. */
  numberOf(hash: Hex): bigint | undefined
  /** The hash of block `number`, for BLOCKHASH; undefined past the head. */
  hash(number: bigint): Uint8Array | undefined
  /**
   * The block's logs bloom, or undefined when none of its transactions logged: eth_getLogs reads only the blocks
   * whose bloom may hold what it looks for.
   */
  logsBloom(number: bigint): Uint8Array | undefined
  /** The receipts of block `number` and what locates them; a block not held whole is read back without keeping it. */
  logs(number: bigint): BlockLogs | undefined
  /** Every block's hash, the first block's first. */
  hashes(): Uint8Array[]
  /** Where a sealed transaction is, by its hash. */
  locate(hash: Hex): { number: bigint; index: number } | undefined
  /** Forgets the blocks after `number` (a revert), which the store no longer holds either. */
  truncate(number: bigint): void
  /** Forgets every block, and starts again from `sealed` (a reset to another fork block), which the store holds alone. */
  restart(sealed: SealedBlock): void
}

export type SealedBlocksOptions = {
  /** Decodes block `number` from the store. */
  load: (number: bigint, hash: Hex) => SealedBlock
  /** Reads block `number`'s receipts from the store, without decoding its transactions. */
  loadLogs: (number: bigint, hash: Hex) => BlockLogs
  /** See WHOLE_TRANSACTIONS. */
  wholeTransactions?: number
  /** See READ_BACK_TRANSACTIONS. */
  readBackTransactions?: number
  /** See SealedBlocks.first; 0 by default. */
  first?: bigint
}

/** Blocks held whole up to a total weight (their transactions, at least 1 each), oldest entry given up first. */
function createHeld(capacity: number) {
  const held = new Map<number, SealedBlock>()
  let weight = 0
  const weightOf = (sealed: SealedBlock) => Math.max(1, sealed.receipts.length)
  return {
    get: (number: number) => held.get(number),
    /** Moves a held block to the back of the queue. */
    touch(number: number, sealed: SealedBlock) {
      held.delete(number)
      held.set(number, sealed)
    },
    /** Gives up the blocks after `number`. */
    dropAfter(number: number) {
      for (const [at, block] of held) {
        if (at <= number) continue
        held.delete(at)
        weight -= weightOf(block)
      }
    },
    /** Adds a block, then gives up the oldest until the weight fits, except `keep`. */
    add(number: number, sealed: SealedBlock, keep: SealedBlock) {
      held.set(number, sealed)
      weight += weightOf(sealed)
      for (const [oldest, block] of held) {
        if (weight <= capacity) break
        if (block === keep) continue
        held.delete(oldest)
        weight -= weightOf(block)
      }
    },
  }
}

export function createSealedBlocks(options: SealedBlocksOptions): SealedBlocks {
  const { load, loadLogs, wholeTransactions = WHOLE_TRANSACTIONS, readBackTransactions = READ_BACK_TRANSACTIONS } = options
  let first = options.first ?? 0n
  /** Where block `number` is in the lists below (they start at the first block), or -1 when it is not held. */
  const indexOf = (number: bigint): number => (number < first || number - first >= hashes.length ? -1 : Number(number - first))
  const hashes: Hex[] = []
  const hashBytes: Uint8Array[] = []
  /** Blooms of the blocks that logged (256 bytes each); the others hold undefined. */
  const blooms: (Uint8Array | undefined)[] = []
  const numbers = new Map<Hex, number>()
  /** Every sealed transaction's block and position, by hash. */
  const transactions = new Map<Hex, { number: bigint; index: number }>()
  /** The hashes of each block's transactions, by block, for truncate to find without a scan. */
  const hashesOf: Hex[][] = []
  /** The newest blocks, in the order they were sealed. */
  const newest = createHeld(wholeTransactions)
  /** Older blocks read back, least recently used first. */
  const readBack = createHeld(readBackTransactions)
  /** Never given up, so read without touching either queue. */
  let head: SealedBlock | undefined

  function held(at: number): SealedBlock | undefined {
    const sealed = readBack.get(at)
    if (sealed !== undefined) readBack.touch(at, sealed)
    return sealed ?? newest.get(at)
  }

  function byNumber(number: bigint): SealedBlock | undefined {
    const at = indexOf(number)
    if (at < 0) return undefined
    const found = held(at)
    if (found !== undefined) return found
    const sealed = load(number, hashes[at]!)
    readBack.add(at, sealed, sealed)
    return sealed
  }

  function add(sealed: SealedBlock) {
    const at = Number(sealed.number - first)
    if (at !== hashes.length) throw new Error(`block ${sealed.number} added after block ${first + BigInt(hashes.length) - 1n}`)
    hashes.push(sealed.hash)
    hashBytes.push(hexToBytes(sealed.hash))
    // A copy: the header's bloom may be a view into the whole block's encoding.
    blooms.push(sealed.receipts.some((receipt) => receipt.logs.length > 0) ? sealed.block.header.logsBloom.slice() : undefined)
    numbers.set(sealed.hash, at)
    const blockTransactions: Hex[] = []
    for (const [index, tx] of sealed.block.transactions.entries()) {
      const hash = bytesToHex(tx.hash()) as Hex
      transactions.set(hash, { number: sealed.number, index })
      blockTransactions.push(hash)
    }
    // Empty blocks (most of a test chain's) share one list.
    hashesOf.push(blockTransactions.length === 0 ? NO_TRANSACTIONS : blockTransactions)
    head = sealed
    newest.add(at, sealed, sealed)
  }

  return {
    get first() {
      return first
    },
    get count() {
      return hashes.length
    },
    head() {
      if (head === undefined) throw new Error('no block yet')
      return head
    },
    add,
    byNumber,
    byHash(hash) {
      const at = numbers.get(hash.toLowerCase() as Hex)
      return at === undefined ? undefined : byNumber(first + BigInt(at))
    },
    numberOf(hash) {
      const at = numbers.get(hash.toLowerCase() as Hex)
      return at === undefined ? undefined : first + BigInt(at)
    },
    hash: (number) => hashBytes[indexOf(number)],
    logsBloom: (number) => blooms[indexOf(number)],
    logs(number) {
      const at = indexOf(number)
      if (at < 0) return undefined
      const sealed = held(at)
      if (sealed === undefined) return loadLogs(number, hashes[at]!)
      const { transactions } = sealed.block
      return {
        number,
        hash: sealed.hash,
        timestamp: sealed.block.header.timestamp,
        receipts: sealed.receipts,
        transactionHash: (index) => bytesToHex(transactions[index]!.hash()) as Hex,
      }
    },
    hashes: () => [...hashBytes],
    locate: (hash) => transactions.get(hash.toLowerCase() as Hex),
    truncate(number) {
      const keep = Number(number - first) + 1
      if (keep < 1) throw new Error('the first block stays')
      if (keep >= hashes.length) return
      for (const hash of hashes.splice(keep)) numbers.delete(hash)
      hashBytes.length = keep
      blooms.length = keep
      for (const forgotten of hashesOf.splice(keep)) for (const hash of forgotten) transactions.delete(hash)
      newest.dropAfter(keep - 1)
      readBack.dropAfter(keep - 1)
      head = byNumber(number)!
      if (newest.get(keep - 1) === undefined) newest.add(keep - 1, head, head)
    },
    restart(sealed) {
      hashes.length = 0
      hashBytes.length = 0
      blooms.length = 0
      numbers.clear()
      transactions.clear()
      hashesOf.length = 0
      newest.dropAfter(-1)
      readBack.dropAfter(-1)
      first = sealed.number
      add(sealed)
    },
  }
}
