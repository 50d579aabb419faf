import * as Address from 'ox/Address'

import type { Transaction } from '../../chain/types.ts'

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
