import { Block, createBlockFromRLP, createBlockHeaderFromBytesArray } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { createTxFromBlockBodyData, createTxFromRLP } from '@ethereumjs/tx'
import { createWithdrawalFromBytesArray } from '@ethereumjs/util'

import { DEPOSIT_TX_TYPE, asDeposit, asTyped, decodeDeposit } from './deposit.ts'

import type { BlockOptions } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { WithdrawalBytes } from '@ethereumjs/util'
import type { Receipt } from '../types.ts'

/** A transaction's envelope, an OP Stack deposit included (which ethereumjs's factory refuses). */
export function decodeTransaction(raw: Uint8Array, common: Common): TypedTransaction {
  return raw[0] === DEPOSIT_TX_TYPE ? asTyped(decodeDeposit(raw, common)) : createTxFromRLP(raw, { common })
}

/**
 * A block's RLP, its deposits included. A block without one takes ethereumjs's own path; one with a deposit is
 * assembled here from its decoded parts, as createBlockFromBytesArray does.
 */
export function decodeBlock(rlp: Uint8Array, options: BlockOptions & { common: Common }): Block {
  const [headerFields, transactions, uncles, withdrawals] = RLP.decode(rlp) as [
    Uint8Array[],
    (Uint8Array | Uint8Array[])[],
    Uint8Array[][],
    WithdrawalBytes[]?,
  ]
  if (!transactions.some((tx) => tx instanceof Uint8Array && tx[0] === DEPOSIT_TX_TYPE)) return createBlockFromRLP(rlp, options)
  if (uncles.length > 0) throw new Error('an OP Stack block has no ommers')
  const header = createBlockHeaderFromBytesArray(headerFields, options)
  const txs = transactions.map((tx) =>
    tx instanceof Uint8Array && tx[0] === DEPOSIT_TX_TYPE
      ? asTyped(decodeDeposit(tx, header.common))
      : createTxFromBlockBodyData(tx, { ...options, common: header.common }),
  )
  return new Block(header, txs, [], withdrawals?.map(createWithdrawalFromBytesArray), options)
}

/** Gives a block's deposits the nonces they ran with, which their receipts keep (the envelope has none). */
export function withDepositNonces<T extends { transactions: readonly TypedTransaction[] }>(block: T, receipts: readonly Receipt[]): T {
  for (const [i, tx] of block.transactions.entries()) {
    const nonce = receipts[i]?.depositNonce
    const deposit = asDeposit(tx)
    if (nonce !== undefined && deposit !== undefined) deposit.nonce = nonce
  }
  return block
}
