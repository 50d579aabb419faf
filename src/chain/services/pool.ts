import { bytesToHex } from '@ethereumjs/util'

import { InvalidInputError, RefusedError, TransactionRejectedError } from '../errors.ts'
import { pendingIndexOf } from '../blocks/types.ts'
import { DepositTransaction, decodeDeposit } from '../opstack/deposit.ts'
import { L1_INFO_GAS } from '../opstack/deposits.ts'
import { transactionOf } from '../blocks/views.ts'
import { suggestedFees } from '../production/fees.ts'

import type { Common } from '@ethereumjs/common'
import type { SealedBlocks } from '../blocks/sealedBlocks.ts'
import type { DepositFields } from '../opstack/deposit.ts'
import type { OpStackBlocks } from '../opstack/deposits.ts'
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
  producer: Pick<Producer, 'waitForPreconfirmation' | 'seal'>
  blocks: SealedBlocks
  pending: () => PendingSnapshot
  forks: Forks
  common: Common
  /** On an OP Stack chain, where deposits wait for the next block's start. */
  opStack?: OpStackBlocks
}

/** Transactions on their way in: admission, what waits in the pool, the fees to offer, and the wait for a flashblock. */
export type PoolService = {
  /**
   * Admits a signed transaction to the pool. With `impersonating`, it is from that account whatever its signature
   * says (anvil_impersonateAccount: the wallet decides who may).
   */
  sendRawTransaction(raw: Uint8Array, impersonating?: Hex): Promise<Hex>
  /**
   * Queues an OP Stack deposit for the next block's start, as the portal's deposit would arrive from L1 (the owner
   * stands in for L1). Its hash once it is durable; under automine, once its block is sealed.
   */
  sendDeposit(deposit: DepositFields | Uint8Array): Promise<Hex>
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
    async sendDeposit(fields) {
      const { opStack } = parts
      if (opStack === undefined) throw new RefusedError('deposit transactions need an OP Stack chain (--op-stack)')
      const deposit = fields instanceof Uint8Array ? decodeRawDeposit(fields, parts.common) : new DepositTransaction(fields, parts.common)
      // The block's gas pool takes a deposit's whole gas limit, beside the L1 attributes deposit's (as op-geth's).
      const room = pending().env.gasLimit - L1_INFO_GAS
      if (deposit.gasLimit > room)
        throw new InvalidInputError(`deposit gas ${deposit.gasLimit} exceeds what a block holds beside its L1 attributes deposit, ${room}`, {
          input: 'transaction',
        })
      if (deposit.mint >= MAX_UINT256 || deposit.value >= MAX_UINT256)
        throw new InvalidInputError('a deposit mints and sends less than 2^256 wei', { input: 'transaction' })
      const hash = bytesToHex(deposit.hash()) as Hex
      if (blocks.locate(hash) !== undefined || pendingIndexOf(pending(), hash) !== undefined || opStack.holds(hash))
        throw new TransactionRejectedError({ kind: 'alreadyKnown' })
      opStack.queue(deposit)
      if (automine.enabled) await producer.seal()
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

/** A deposit's envelope, or an invalid input that says what is wrong with it. */
function decodeRawDeposit(raw: Uint8Array, common: Common): DepositTransaction {
  try {
    return decodeDeposit(raw, common)
  } catch (error) {
    throw new InvalidInputError(error instanceof Error ? error.message : String(error), { input: 'transaction' })
  }
}

const MAX_UINT256 = 2n ** 256n
