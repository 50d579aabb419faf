import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes } from '@ethereumjs/util'

import { hexToBytes } from '../../hex.ts'

import type { Receipt } from '../types.ts'

/**
 * A receipt's consensus encoding, as the receipts trie and `debug_getRawReceipts` carry it: the RLP list
 * [status or post-state root, cumulative gas, bloom, logs], prefixed by the transaction type for typed ones (EIP-2718).
 * An OP Stack deposit's list goes on with its deposit nonce and receipt version, as from Canyon.
 */
export function encodeReceipt(receipt: Receipt, type: number): Uint8Array {
  const outcome = receipt.root !== undefined ? hexToBytes(receipt.root) : receipt.status === 1 ? Uint8Array.of(1) : new Uint8Array(0)
  const logs = receipt.logs.map((entry) => [hexToBytes(entry.address), entry.topics.map(hexToBytes), hexToBytes(entry.data)])
  const deposit = receipt.depositNonce === undefined ? undefined : { nonce: receipt.depositNonce, version: receipt.depositReceiptVersion ?? 1 }
  return encodeReceiptFields(type, [outcome, bigIntToUnpaddedBytes(receipt.cumulativeGasUsed), hexToBytes(receipt.logsBloom), logs], deposit)
}

/** The encoding of a receipt's fields [outcome, cumulative gas, bloom, logs], with a deposit's two more. */
export function encodeReceiptFields(type: number, fields: NestedBytes[], deposit?: { nonce: bigint; version: number }): Uint8Array {
  const extra = deposit === undefined ? [] : [bigIntToUnpaddedBytes(deposit.nonce), bigIntToUnpaddedBytes(BigInt(deposit.version))]
  const body = RLP.encode([...fields, ...extra])
  if (type === 0) return body
  const typed = new Uint8Array(body.length + 1)
  typed[0] = type
  typed.set(body, 1)
  return typed
}

type NestedBytes = Uint8Array | NestedBytes[]
