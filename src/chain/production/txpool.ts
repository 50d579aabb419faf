import { TransactionRejectedError } from '../errors.ts'

import type { TypedTransaction } from '@ethereumjs/tx'
import type { Hex } from '../../hex.ts'

export type PoolTransaction = {
  tx: TypedTransaction
  hash: Hex
  sender: Hex
  /** Sent as an impersonated account: `sender` is who it is from, whatever its signature says. */
  impersonated?: boolean
  raw: Uint8Array
  /**
   * The sender's nonce once this transaction ran: nonce + 1, plus one for each authorization of the sender's own
   * in it (EIP-7702 bumps the authority's nonce too).
   */
  nonceAfter: bigint
  /**
   * Executed into the block being built for the next flashblock, which has not gone out yet. It stays in the pool,
   * pending to every reader, until that flashblock is published; no transaction can replace it any more.
   */
  taken?: boolean
}

/** geth's txpool.pricebump: a replacement must pay 10% more, both in fee cap and tip. */
const PRICE_BUMP_PERCENT = 110n

function feeCap(tx: TypedTransaction): bigint {
  return 'maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice
}

function tipCap(tx: TypedTransaction): bigint {
  return 'maxPriorityFeePerGas' in tx ? tx.maxPriorityFeePerGas : (tx as { gasPrice: bigint }).gasPrice
}

/** What the producer earns per gas from `tx` at `baseFee`; negative when the fee cap is below it. */
export function effectiveTip(tx: TypedTransaction, baseFee: bigint): bigint {
  const cap = feeCap(tx) - baseFee
  const tip = tipCap(tx)
  return tip < cap ? tip : cap
}

/**
 * Transactions waiting to be pre-confirmed, by sender and nonce. Validation against state happens before a
 * transaction gets here; the pool only knows ordering and replacement.
 */
export type Pool = {
  readonly size: number
  get(hash: Hex): PoolTransaction | undefined
  /** Adds, or replaces the sender's transaction with the same nonce. Returns the replaced one. */
  add(entry: PoolTransaction): PoolTransaction | undefined
  remove(hash: Hex): void
  /** The next nonce after the sender's run of consecutive transactions from `stateNonce`. */
  nextNonce(sender: Hex, stateNonce: bigint): bigint
  /**
   * Pool transactions in the order a block should take them: per sender by nonce starting at its state nonce,
   * across senders by tip, then by arrival. `include` says whether each was taken; a sender whose transaction
   * was not taken contributes nothing more this round. `enough`, asked after each one taken, ends the round early:
   * what is left waits for the next. True if it did.
   */
  select(
    stateNonce: (sender: Hex) => bigint,
    baseFee: bigint,
    include: (entry: PoolTransaction) => Promise<boolean>,
    enough?: () => boolean,
  ): Promise<boolean>
  all(): IterableIterator<PoolTransaction>
  /**
   * Every transaction by sender, then nonce: `pending` those a block could take now (the run of consecutive nonces
   * from the sender's state nonce), `queued` those waiting behind a gap, as geth's txpool divides them.
   */
  content(stateNonce: (sender: Hex) => bigint): { pending: PoolTransaction[]; queued: PoolTransaction[] }
}

export function createPool(): Pool {
  const byHash = new Map<Hex, PoolTransaction>()
  const bySender = new Map<Hex, Map<bigint, PoolTransaction>>()
  const arrival = new Map<Hex, number>()
  let counter = 0

  function remove(hash: Hex) {
    const entry = byHash.get(hash)
    if (entry === undefined) return
    byHash.delete(hash)
    arrival.delete(hash)
    const nonces = bySender.get(entry.sender)!
    nonces.delete(entry.tx.nonce)
    if (nonces.size === 0) bySender.delete(entry.sender)
  }

  return {
    get size() {
      return byHash.size
    },
    get: (hash) => byHash.get(hash),

    add(entry) {
      if (byHash.has(entry.hash)) throw new TransactionRejectedError({ kind: 'alreadyKnown' })
      let nonces = bySender.get(entry.sender)
      if (nonces === undefined) bySender.set(entry.sender, (nonces = new Map()))
      const existing = nonces.get(entry.tx.nonce)
      if (existing?.taken === true)
        throw new TransactionRejectedError({ kind: 'nonceTooLow', address: entry.sender, txNonce: entry.tx.nonce, stateNonce: existing.nonceAfter })
      if (existing !== undefined) {
        const bumped =
          feeCap(entry.tx) * 100n >= feeCap(existing.tx) * PRICE_BUMP_PERCENT && tipCap(entry.tx) * 100n >= tipCap(existing.tx) * PRICE_BUMP_PERCENT
        if (!bumped) throw new TransactionRejectedError({ kind: 'replacementUnderpriced' })
        remove(existing.hash)
        nonces = bySender.get(entry.sender) ?? new Map()
        bySender.set(entry.sender, nonces)
      }
      nonces.set(entry.tx.nonce, entry)
      byHash.set(entry.hash, entry)
      arrival.set(entry.hash, counter++)
      return existing
    },

    remove,

    nextNonce(sender, stateNonce) {
      const nonces = bySender.get(sender)
      let nonce = stateNonce
      for (let entry = nonces?.get(nonce); entry !== undefined; entry = nonces!.get(nonce)) nonce = entry.nonceAfter
      return nonce
    },

    async select(stateNonce, baseFee, include, enough) {
      const heads: PoolTransaction[] = []
      for (const [sender, nonces] of bySender) {
        const head = nonces.get(stateNonce(sender))
        if (head !== undefined) heads.push(head)
      }
      const better = (a: PoolTransaction, b: PoolTransaction) => {
        const tipA = effectiveTip(a.tx, baseFee)
        const tipB = effectiveTip(b.tx, baseFee)
        return tipA !== tipB ? tipA > tipB : arrival.get(a.hash)! < arrival.get(b.hash)!
      }
      while (heads.length > 0) {
        let best = 0
        for (let i = 1; i < heads.length; i++) if (better(heads[i]!, heads[best]!)) best = i
        const entry = heads[best]!
        const taken = await include(entry)
        if (taken && enough?.() === true) return true
        const next = taken ? bySender.get(entry.sender)?.get(entry.nonceAfter) : undefined
        if (next === undefined) heads.splice(best, 1)
        else heads[best] = next
      }
      return false
    },

    all: () => byHash.values(),

    content(stateNonce) {
      const pending: PoolTransaction[] = []
      const queued: PoolTransaction[] = []
      for (const sender of [...bySender.keys()].sort()) {
        const nonces = bySender.get(sender)!
        let next = stateNonce(sender)
        for (const nonce of [...nonces.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
          const entry = nonces.get(nonce)!
          if (nonce === next) {
            pending.push(entry)
            next = entry.nonceAfter
          } else queued.push(entry)
        }
      }
      return { pending, queued }
    },
  }
}
