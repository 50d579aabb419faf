import { bytesToHex, hexToBytes } from '@ethereumjs/util'

import { createHashList } from './hashList.ts'
import { sealedBlockOf, sealedBlockPosition } from './views.ts'

import type { TypedTransaction } from '@ethereumjs/tx'
import type { SealedBlock } from './types.ts'
import type { Hex } from '../../hex.ts'
import type { LogCriteria, LogRow } from '../storage/chainStore.ts'
import type { Block, BlockPosition, Receipt } from '../types.ts'

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

/** A sealed transaction with what locates it: what a receipt or a transaction lookup answers. */
export type SealedTransaction = {
  tx: TypedTransaction
  sender: Hex
  receipt: Receipt
  index: number
  /** The index in its block of its first log. */
  firstLog: number
  block: BlockPosition
}

/** What the chain's store answers about its sealed blocks (storage/load.ts), each read costing what it answers. */
export type SealedBlocksSource = {
  /** Decodes block `number`. */
  load(number: bigint, hash: Hex): SealedBlock
  /** Block `number`'s view, read without its transactions; `whole` decodes the block when they are asked for. */
  view(number: bigint, hash: Hex, whole: () => SealedBlock): Block
  numberOf(hash: Hex): bigint | undefined
  locate(hash: Hex): { number: bigint; index: number } | undefined
  /** One sealed transaction, read without the rest of its block; `blockHash` names its block's hash, which the chain holds. */
  transaction(hash: Hex, blockHash: (number: bigint) => Hex): SealedTransaction | undefined
  /** Block `number`'s timestamp, read without its transactions. */
  timestamp(number: bigint): bigint
  /** See ChainStore.logRows. */
  logRows(from: bigint, to: bigint, criteria: LogCriteria): Iterable<LogRow>
}

/**
 * The sealed chain. Every block's hash stays in memory (32 bytes a block, what BLOCKHASH and every block's answer
 * need); the newest blocks are held whole, and an older one is decoded again from the store when a request names it,
 * then held for a while. Transactions, receipts and logs are found through the store's indexes.
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
  /**
   * Block `number`'s plain data: a held block's view, else one read from the store without its transactions, which
   * are decoded when first read (a block asked for with hashes only never is).
   */
  view(number: bigint): Block | undefined
  /** The number of the block with this hash, without reading the block. */
  numberOf(hash: Hex): bigint | undefined
  /** The hash of block `number`, for BLOCKHASH; undefined past the head. */
  hash(number: bigint): Uint8Array | undefined
  /** Every block's hash, the first block's first, 32 bytes each. */
  hashes(): Uint8Array
  /** Where a sealed transaction is, by its hash. */
  locate(hash: Hex): { number: bigint; index: number } | undefined
  /** A sealed transaction, from its block when that is held, else read alone. */
  transaction(hash: Hex): SealedTransaction | undefined
  /** Block `number`'s timestamp. */
  timestamp(number: bigint): bigint
  /** See ChainStore.logRows: the blocks up to the head only. */
  logRows(from: bigint, to: bigint, criteria: LogCriteria): Iterable<LogRow>
  /** Forgets the blocks after `number` (a revert), which the store no longer holds either. */
  truncate(number: bigint): void
  /** Forgets every block, and starts again from `sealed` (a reset to another fork block), which the store holds alone. */
  restart(sealed: SealedBlock): void
}

export type SealedBlocksOptions = {
  source: SealedBlocksSource
  /** The blocks the store holds already: their hashes (the first block's first, 32 bytes each), and the newest. */
  stored?: { hashes: Uint8Array; head: SealedBlock }
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
  const { source, wholeTransactions = WHOLE_TRANSACTIONS, readBackTransactions = READ_BACK_TRANSACTIONS } = options
  let first = options.first ?? 0n
  const hashes = createHashList(options.stored?.hashes)
  /** Where block `number` is in the hash list (it starts at the first block), or -1 when it is not on the chain. */
  const indexOf = (number: bigint): number => (number < first || number - first >= hashes.length ? -1 : Number(number - first))
  /** The newest blocks, in the order they were sealed. */
  const newest = createHeld(wholeTransactions)
  /** Older blocks read back, least recently used first. */
  const readBack = createHeld(readBackTransactions)
  /** Never given up, so read without touching either queue. */
  let head = options.stored?.head
  if (head !== undefined) newest.add(indexOf(head.number), head, head)

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
    const sealed = source.load(number, bytesToHex(hashes.at(at)) as Hex)
    readBack.add(at, sealed, sealed)
    return sealed
  }

  function add(sealed: SealedBlock) {
    const at = Number(sealed.number - first)
    if (at !== hashes.length) throw new Error(`block ${sealed.number} added after block ${first + BigInt(hashes.length) - 1n}`)
    hashes.push(hexToBytes(sealed.hash))
    head = sealed
    newest.add(at, sealed, sealed)
  }

  /** A block's number by hash, if it is on the chain: the store's answer is checked against the list. */
  function numberOf(hash: Hex): bigint | undefined {
    const number = source.numberOf(hash.toLowerCase() as Hex)
    return number !== undefined && indexOf(number) >= 0 ? number : undefined
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
      const number = numberOf(hash)
      return number === undefined ? undefined : byNumber(number)
    },
    numberOf,
    view(number) {
      const at = indexOf(number)
      if (at < 0) return undefined
      const found = held(at)
      return found !== undefined ? sealedBlockOf(found) : source.view(number, bytesToHex(hashes.at(at)) as Hex, () => byNumber(number)!)
    },
    hash(number) {
      const at = indexOf(number)
      return at < 0 ? undefined : hashes.at(at)
    },
    hashes: () => hashes.bytes(),
    locate: (hash) => source.locate(hash.toLowerCase() as Hex),
    transaction(hash) {
      const key = hash.toLowerCase() as Hex
      const at = source.locate(key)
      if (at === undefined) return undefined
      const sealed = held(indexOf(at.number))
      if (sealed === undefined) return source.transaction(key, (number) => bytesToHex(hashes.at(indexOf(number))) as Hex)
      const { index } = at
      let firstLog = 0
      for (let i = 0; i < index; i++) firstLog += sealed.receipts[i]!.logs.length
      const tx = sealed.block.transactions[index]!
      return { tx, sender: sealed.senders[index]!, receipt: sealed.receipts[index]!, index, firstLog, block: sealedBlockPosition(sealed) }
    },
    timestamp(number) {
      return held(indexOf(number))?.block.header.timestamp ?? source.timestamp(number)
    },
    logRows(from, to, criteria) {
      const last = head === undefined ? -1n : head.number
      return source.logRows(from, to < last ? to : last, criteria)
    },
    truncate(number) {
      const keep = Number(number - first) + 1
      if (keep < 1) throw new Error('the first block stays')
      if (keep >= hashes.length) return
      hashes.truncate(keep)
      newest.dropAfter(keep - 1)
      readBack.dropAfter(keep - 1)
      head = byNumber(number)!
      if (newest.get(keep - 1) === undefined) newest.add(keep - 1, head, head)
    },
    restart(sealed) {
      hashes.truncate(0)
      newest.dropAfter(-1)
      readBack.dropAfter(-1)
      first = sealed.number
      add(sealed)
    },
  }
}
