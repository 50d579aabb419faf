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
  const body = RLP.encode([
    outcome,
    bigIntToUnpaddedBytes(receipt.cumulativeGasUsed),
    hexToBytes(receipt.logsBloom),
    receipt.logs.map((entry) => [hexToBytes(entry.address), entry.topics.map(hexToBytes), hexToBytes(entry.data)]),
    ...(receipt.depositNonce === undefined
      ? []
      : [bigIntToUnpaddedBytes(receipt.depositNonce), bigIntToUnpaddedBytes(BigInt(receipt.depositReceiptVersion ?? 1))]),
  ])
  if (type === 0) return body
  const typed = new Uint8Array(body.length + 1)
  typed[0] = type
  typed.set(body, 1)
  return typed
}
