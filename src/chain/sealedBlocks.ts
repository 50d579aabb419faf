import { hexToBytes } from '@ethereumjs/util'

import type { SealedBlock } from './blocks.ts'
import type { Hex } from './state/types.ts'

/**
 * Transactions the recent blocks may hold whole between them (the head is always held). A decoded transaction with
 * its receipt and sender costs about 2.5 kB of heap, so holding every block made the heap grow by 16 MB per 6400
 * transactions, for as long as the chain ran. 4096 is two full 30M-gas blocks of transfers, far more than the
 * blocks the pending tag, receipt polls and the answer cache touch.
 */
export const WHOLE_TRANSACTIONS = 4096

/**
 * The sealed chain. Every block's hash (and its logs bloom, if it logged) stays in memory; the newest blocks are held
 * whole, and an older one is decoded again from the store when a request names it, then held among the recent.
 */
export type SealedBlocks = {
  /** Blocks on the chain, genesis included. */
  readonly count: number
  head(): SealedBlock
  /** Appends the next block. It must be in the store already, since it may be read back from there. */
  add(sealed: SealedBlock): void
  byNumber(number: bigint): SealedBlock | undefined
  byHash(hash: Hex): SealedBlock | undefined
  /** The hash of block `number`, for BLOCKHASH; undefined past the head. */
  hash(number: bigint): Uint8Array | undefined
  /**
   * The block's logs bloom, or undefined when none of its transactions logged: eth_getLogs decodes only the blocks
   * whose bloom may hold what it looks for.
   */
  logsBloom(number: bigint): Uint8Array | undefined
  /** Every block's hash, genesis first. */
  hashes(): Uint8Array[]
}

export type SealedBlocksOptions = {
  /** Decodes block `number` from the store. */
  load: (number: bigint, hash: Hex) => SealedBlock
  /** See WHOLE_TRANSACTIONS. */
  wholeTransactions?: number
}

export function createSealedBlocks(options: SealedBlocksOptions): SealedBlocks {
  const { load, wholeTransactions = WHOLE_TRANSACTIONS } = options
  const hashes: Hex[] = []
  const hashBytes: Uint8Array[] = []
  /** Blooms of the blocks that logged (256 bytes each); the others hold undefined. */
  const blooms: (Uint8Array | undefined)[] = []
  const numbers = new Map<Hex, number>()
  /** Blocks held whole, least recently used first. */
  const whole = new Map<number, SealedBlock>()
  let wholeWeight = 0
  /** Never let go of, so read without touching the order. */
  let head: SealedBlock | undefined

  /** A block weighs its transactions, and at least 1. */
  const weight = (sealed: SealedBlock) => Math.max(1, sealed.receipts.length)

  function hold(number: number, sealed: SealedBlock) {
    whole.set(number, sealed)
    wholeWeight += weight(sealed)
    for (const [oldest, block] of whole) {
      if (wholeWeight <= wholeTransactions) break
      if (block === head) continue
      whole.delete(oldest)
      wholeWeight -= weight(block)
    }
  }

  function byNumber(number: bigint): SealedBlock | undefined {
    if (number < 0n || number >= hashes.length) return undefined
    const at = Number(number)
    const held = whole.get(at)
    if (held !== undefined) {
      // Most recently used goes last.
      whole.delete(at)
      whole.set(at, held)
      return held
    }
    const sealed = load(number, hashes[at]!)
    hold(at, sealed)
    return sealed
  }

  return {
    get count() {
      return hashes.length
    },
    head() {
      if (head === undefined) throw new Error('no block yet')
      return head
    },
    add(sealed) {
      const at = Number(sealed.number)
      if (at !== hashes.length) throw new Error(`block ${sealed.number} added after block ${hashes.length - 1}`)
      hashes.push(sealed.hash)
      hashBytes.push(hexToBytes(sealed.hash))
      // A copy: the header's bloom may be a view into the whole block's encoding.
      blooms.push(sealed.receipts.some((receipt) => receipt.logs.length > 0) ? sealed.block.header.logsBloom.slice() : undefined)
      numbers.set(sealed.hash, at)
      head = sealed
      hold(at, sealed)
    },
    byNumber,
    byHash(hash) {
      const at = numbers.get(hash.toLowerCase() as Hex)
      return at === undefined ? undefined : byNumber(BigInt(at))
    },
    hash: (number) => (number >= 0n && number < hashBytes.length ? hashBytes[Number(number)] : undefined),
    logsBloom: (number) => (number >= 0n && number < blooms.length ? blooms[Number(number)] : undefined),
    hashes: () => [...hashBytes],
  }
}
