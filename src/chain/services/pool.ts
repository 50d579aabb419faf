import { InvalidInputError } from '../errors.ts'
import { transactionOf } from '../blocks/views.ts'
import { suggestedFees } from '../production/fees.ts'

import type { SealedBlocks } from '../blocks/sealedBlocks.ts'
import type { PendingSnapshot } from '../blocks/types.ts'
import type { ChainEvents } from '../events.ts'
import type { Admission } from '../production/admission.ts'
import type { Automine } from '../production/automine.ts'
import type { SuggestedFees } from '../production/fees.ts'
import type { Producer } from '../production/producer.ts'
import type { Pool, PoolTransaction } from '../production/txpool.ts'
import type { Forks } from '../spec/forks.ts'
import type { ChainStore } from '../storage/chainStore.ts'
import type { Hex } from '../../hex.ts'
import type { PoolContent } from '../types.ts'

export type PoolParts = {
  pool: Pool
  /** The pool's door. */
  admission: Admission
  store: ChainStore
  events: ChainEvents
  automine: Automine
  producer: Pick<Producer, 'waitForPreconfirmation'>
  blocks: SealedBlocks
  pending: () => PendingSnapshot
  forks: Forks
}

/** Transactions on their way in: admission, what waits in the pool, the fees to offer, and the wait for a flashblock. */
export type PoolService = {
  /**
   * Admits a signed transaction to the pool. With `impersonating`, it is from that account whatever its signature
   * says (anvil_impersonateAccount: the wallet decides who may).
   */
  sendRawTransaction(raw: Uint8Array, impersonating?: Hex): Promise<Hex>
  /** What the pool holds, against the pending state's nonces. */
  content(): PoolContent
  /**
   * Takes transactions out of the pool and its store: those named, or every one. Pre-confirmed and sealed ones stay.
   * Returns the hashes dropped; a sender's later nonces wait behind the gap.
   */
  dropTransactions(hashes?: readonly Hex[]): Hex[]
  /** The nonce the sender's next transaction should use: pending state plus queued pool transactions. */
  nextNonce(address: Hex): bigint
  /** Fees to offer for a transaction in the pending block. */
  suggestedFees(): SuggestedFees
  /** Resolves once the transaction is pre-confirmed or sealed (true), or after `timeoutMs` (false). */
  waitForPreconfirmation(hash: Hex, timeoutMs: number): Promise<boolean>
  /** The lowest gas price a legacy transaction may offer (anvil_setMinGasPrice), on a chain without EIP-1559. */
  setMinGasPrice(price: bigint): void
}

export function createPoolService(parts: PoolParts): PoolService {
  const { pool, admission, store, events, automine, producer, blocks, pending, forks } = parts
  const pendingEnv = () => pending().env

  return {
    async sendRawTransaction(raw, impersonating) {
      const hash = admission.admit(admission.decode(raw, impersonating !== undefined), raw, impersonating)
      const entry = pool.get(hash)
      if (entry !== undefined) events.announce(() => ({ type: 'poolTransaction', transaction: transactionOf(entry.tx, entry.sender) }))
      if (automine.enabled) await automine.sealWith(hash)
      return hash
    },
    content() {
      const { state } = pending()
      const content = pool.content((sender) => state.account(sender)?.nonce ?? 0n)
      const plain = (entries: PoolTransaction[]) => entries.map((entry) => transactionOf(entry.tx, entry.sender))
      return { pending: plain(content.pending), queued: plain(content.queued) }
    },
    dropTransactions(hashes) {
      // One taken for the next flashblock is as good as pre-confirmed: it stays.
      const dropped = (hashes ?? [...pool.all()].map((entry) => entry.hash)).filter((hash) => {
        const entry = pool.get(hash)
        return entry !== undefined && entry.taken !== true
      })
      for (const hash of dropped) pool.remove(hash)
      store.removePoolTransactions(dropped)
      return dropped
    },
    nextNonce: (address) => admission.nextNonce(address),
    suggestedFees: () => suggestedFees(pendingEnv().baseFeePerGas ?? 0n),
    waitForPreconfirmation(hash, timeoutMs) {
      // Automine seals a transaction before its send answers: it was pre-confirmed on the way.
      if (blocks.locate(hash.toLowerCase() as Hex) !== undefined) return Promise.resolve(true)
      return producer.waitForPreconfirmation(hash, timeoutMs)
    },
    setMinGasPrice(price) {
      if (forks.at(pendingEnv()).isActivatedEIP(1559)) throw new InvalidInputError('anvil_setMinGasPrice is not supported when EIP-1559 is active')
      admission.minGasPrice = price
    },
  }
}
