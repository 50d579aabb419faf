// How a sealed block is laid out in the store: a row for the block without its transactions, and a row for each
// transaction with its sender and receipt. A receipt, a transaction or a block's hashes are then read for what they
// are, where a block kept whole had to be decoded whole (a block of 8,000 transfers took 340–560 ms) to answer one
// receipt of it.
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt, bytesToHex, hexToBytes } from '@ethereumjs/util'

import { EMPTY_BLOOM } from '../blocks/types.ts'
import { keccak256 } from '../crypto/keccak.ts'

import type { Hex } from '../../hex.ts'
import type { Log, Receipt } from '../types.ts'

/**
 * Transactions a block may hold in the store: a transaction's row id is its block's number times this plus its index,
 * so a block's transactions are one range of the table's b-tree. 2^20 transfers need 22 billion gas; the id stays an
 * exact JavaScript number up to block 2^33.
 */
export const TRANSACTIONS_PER_BLOCK = 2 ** 20

export const transactionId = (number: bigint | number, index: number): number => Number(number) * TRANSACTIONS_PER_BLOCK + index

export const blockOfTransaction = (id: number): number => Math.floor(id / TRANSACTIONS_PER_BLOCK)

/** A block's RLP as its two parts: the block with an empty transaction list, and each transaction's own encoding (EIP-2718). */
export function splitBlock(rlp: Uint8Array): { body: Uint8Array; transactions: Uint8Array[] } {
  const [header, transactions, ...rest] = RLP.decode(rlp) as [Uint8Array[], (Uint8Array | Uint8Array[])[], ...unknown[]]
  // In a block body a typed transaction is its encoding as a byte string, a legacy one its RLP list.
  const raws = transactions.map((item) => (item instanceof Uint8Array ? item : RLP.encode(item)))
  if (raws.length > TRANSACTIONS_PER_BLOCK)
    throw new Error(`a block of ${raws.length} transactions is more than the store keeps (${TRANSACTIONS_PER_BLOCK})`)
  return { body: RLP.encode([header, [], ...(rest as Uint8Array[])]), transactions: raws }
}

/** The block's RLP again from its parts. */
export function joinBlock(body: Uint8Array, transactions: Uint8Array[]): Uint8Array {
  const [header, , ...rest] = RLP.decode(body) as Uint8Array[]
  // A legacy transaction's encoding is a list (its first byte 0xc0 or above); a typed one starts with its type, below 0x80.
  const items = transactions.map((raw) => (raw[0]! >= 0xc0 ? (RLP.decode(raw) as Uint8Array[]) : raw))
  return RLP.encode([header, items, ...rest])
}

/** Where the timestamp is among a block header's RLP fields (parent hash, ommers hash, …, gas used, timestamp). */
const HEADER_TIMESTAMP = 11

/** The header fields of a block's RLP (whole, or without transactions), undecoded. */
export function headerFields(body: Uint8Array): Uint8Array[] {
  return (RLP.decode(body) as Uint8Array[][])[0]!
}

export const timestampOf = (header: Uint8Array[]): bigint => bytesToBigInt(header[HEADER_TIMESTAMP]!)

// A receipt's bloom is left out: it is its logs' (514 characters of every receipt that logged), and read back lazily.
// `failure` is the log's, not the chain's.
const toJSON = (key: string, value: unknown) =>
  typeof value === 'bigint' ? `0x${value.toString(16)}` : key === 'logsBloom' || key === 'failure' ? undefined : value

const bigintFields = ['cumulativeGasUsed', 'gasUsed', 'effectiveGasPrice', 'blobGasUsed', 'blobGasPrice', 'depositNonce'] as const

/** A receipt as the store keeps it: JSON, quantities in hex, without its bloom, which its logs give back. */
export function encodeReceipt(receipt: Receipt): string {
  return JSON.stringify(receipt, toJSON)
}

export function decodeReceipt(json: string): Receipt {
  return reviveReceipt(JSON.parse(json) as Record<string, unknown>)
}

/** A block's receipts as stores before the split kept them: one JSON array. */
export function decodeReceipts(json: string): Receipt[] {
  return (JSON.parse(json) as Record<string, unknown>[]).map(reviveReceipt)
}

function reviveReceipt(receipt: Record<string, unknown>): Receipt {
  for (const field of bigintFields) {
    if (typeof receipt[field] === 'string') receipt[field] = BigInt(receipt[field])
  }
  // An OP Stack chain's L1 fee: every field a quantity.
  const l1Fee = receipt.l1Fee as Record<string, unknown> | undefined
  if (l1Fee !== undefined) for (const [key, value] of Object.entries(l1Fee)) l1Fee[key] = BigInt(value as string)
  // Stores written before the bloom was left out hold it; an empty one is the shared string.
  if (receipt.logsBloom === EMPTY_BLOOM || (receipt.logsBloom === undefined && (receipt.logs as unknown[]).length === 0)) {
    receipt.logsBloom = EMPTY_BLOOM
  } else if (receipt.logsBloom === undefined) {
    // Computed when first read: a log query reads receipts for their logs alone.
    let bloom: Hex | undefined
    Object.defineProperty(receipt, 'logsBloom', {
      enumerable: true,
      configurable: true,
      get: () => (bloom ??= logsBloomOf(receipt.logs as Log[])),
      set: (value: Hex) => void (bloom = value),
    })
  }
  return receipt as Receipt
}

/** The bloom of a receipt's logs (the yellow paper's M3:2048): three bits per address and per topic. */
export function logsBloomOf(logs: readonly Log[]): Hex {
  const bloom = new Uint8Array(256)
  const add = (value: Uint8Array) => {
    const hash = keccak256(value)
    for (let i = 0; i < 6; i += 2) {
      const bit = ((hash[i]! << 8) | hash[i + 1]!) & 2047
      bloom[255 - (bit >> 3)]! |= 1 << (bit & 7)
    }
  }
  for (const log of logs) {
    add(hexToBytes(log.address))
    for (const topic of log.topics) add(hexToBytes(topic))
  }
  return bytesToHex(bloom) as Hex
}

/** A log's address is key position 4; its topics are 0 to 3. */
const ADDRESS_POSITION = 4

/** The key a log index row has for a topic at `position` (0–3) or, at ADDRESS_POSITION, an address (any case). */
function logKey(position: number, value: Hex): Uint8Array {
  const bytes = hexToBytes(value)
  const key = new Uint8Array(1 + bytes.length)
  key[0] = position
  key.set(bytes, 1)
  return key
}

export const addressKey = (address: Hex): Uint8Array => logKey(ADDRESS_POSITION, address)
export const topicKey = (position: number, topic: Hex): Uint8Array => logKey(position, topic)

/** The distinct keys of a receipt's logs: each log's address and each of its topics at its position. */
export function logKeysOf(receipt: Receipt): Uint8Array[] {
  const seen = new Set<string>()
  const keys: Uint8Array[] = []
  const add = (id: string, key: () => Uint8Array) => {
    if (seen.has(id)) return
    seen.add(id)
    keys.push(key())
  }
  for (const log of receipt.logs) {
    const address = log.address.toLowerCase() as Hex
    add(`a${address}`, () => addressKey(address))
    for (const [position, topic] of log.topics.entries()) {
      const lower = topic.toLowerCase() as Hex
      add(`${position}${lower}`, () => topicKey(position, lower))
    }
  }
  return keys
}
