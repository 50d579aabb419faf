import * as Address from 'ox/Address'

import { formatTransaction } from '../format.ts'

import type { Transaction } from '../../chain/types.ts'
import type { TransactionJSON } from '../format.ts'

/** geth's txpool shape: by checksummed sender, then by nonce in decimal. */
export type BySender<T> = Record<string, ByNonce<T>>
export type ByNonce<T> = Record<string, T>

export function bySender<T>(transactions: readonly Transaction[], describe: (tx: Transaction) => T): BySender<T> {
  const grouped: BySender<T> = {}
  for (const tx of transactions) {
    const sender = Address.checksum(tx.from)
    grouped[sender] ??= {}
    grouped[sender][tx.nonce.toString()] = describe(tx)
  }
  return grouped
}

export function byNonce<T>(transactions: readonly Transaction[], describe: (tx: Transaction) => T): ByNonce<T> {
  return Object.fromEntries(transactions.map((tx) => [tx.nonce.toString(), describe(tx)]))
}

/**
 * A pool transaction as geth's txpool_content writes it (NewRPCPendingTransaction): eth_getTransactionByHash's
 * fields, with the block's, `blockTimestamp` included, null.
 */
export function formatPoolTransaction(tx: Transaction): TransactionJSON {
  const { blockHash, blockNumber, ...rest } = formatTransaction(tx)
  return { blockHash, blockNumber, blockTimestamp: null, ...rest }
}
