// The store's state writes as rows (chainStore.ts writes them): an account's record, a slot's value and a clear of an
// account's storage, each with the block that wrote it, and code by its hash. This module encodes and decodes their
// records and keys; olderRows.ts reads them back.
import { KECCAK256_NULL, KECCAK256_RLP, bigIntToUnpaddedBytes, equalsBytes } from '@ethereumjs/util'

import { hexToBytes } from '../../hex.ts'
import { StoreDamagedError } from './database.ts'

import type { AccountRecord } from '../state/types.ts'

/** A record's first byte: which of its hashes it leaves out. Always below 0xc0, where an RLP list (the older form) starts. */
const EMPTY_STORAGE = 0x01
const NO_CODE = 0x02
/** The code hash of the address's previous record, which the reader has just read. */
const SAME_CODE = 0x04

/**
 * An account row's record: a flags byte, the nonce and the balance each as a length byte and their bytes, then the
 * storage root and the code hash, each left out when it is the empty constant or, for the code hash, when it is the
 * one the address's previous record holds (`previousCodeHash`). An empty block's two system contracts each wrote 70
 * bytes of RLP, and take 35 this way; a funded externally owned account's 70 take about 15.
 */
export function encodeRecord(account: AccountRecord, previousCodeHash?: Uint8Array): Uint8Array {
  const nonce = bigIntToUnpaddedBytes(account.nonce)
  const balance = bigIntToUnpaddedBytes(account.balance)
  const emptyStorage = equalsBytes(account.storageRoot, KECCAK256_RLP)
  const noCode = equalsBytes(account.codeHash, KECCAK256_NULL)
  const sameCode = !noCode && previousCodeHash !== undefined && equalsBytes(account.codeHash, previousCodeHash)
  const record = new Uint8Array(3 + nonce.length + balance.length + (emptyStorage ? 0 : 32) + (noCode || sameCode ? 0 : 32))
  record[0] = (emptyStorage ? EMPTY_STORAGE : 0) | (noCode ? NO_CODE : 0) | (sameCode ? SAME_CODE : 0)
  let at = 1
  for (const bytes of [nonce, balance]) {
    // A length byte holds up to 255. A balance past 2^256 - 1 (ethereumjs adds a fee or a deposit's mint without a
    // bound) is stored as the state holds it, as the RLP form did; past 2^2040 it cannot be, and is refused, not cut.
    if (bytes.length > 255) throw new RangeError(`an account's nonce or balance of ${bytes.length} bytes, past 255`)
    record[at++] = bytes.length
    record.set(bytes, at)
    at += bytes.length
  }
  if (!emptyStorage) record.set(account.storageRoot, (at += 32) - 32)
  if (!noCode && !sameCode) record.set(account.codeHash, at)
  return record
}

/**
 * An account row's record, from SQLite's hex() of it (see QUERIES), in either form: encodeRecord's, or the RLP list
 * of nonce, balance, storage root and code hash that stores written before it hold. `previousCodeHash`: the code
 * hash of the address's previous record, for one that says it keeps it. Its hashes are arrays of their own, and the
 * two most accounts have (an externally owned one has both) are the shared constants.
 */
export function decodeRecordHex(hex: string, previousCodeHash?: () => Uint8Array | undefined): AccountRecord {
  const first = byteAt(hex, 0)
  if (first >= 0xc0) return decodeRlpRecordHex(hex)
  if (first & ~(EMPTY_STORAGE | NO_CODE | SAME_CODE) || (first & NO_CODE && first & SAME_CODE))
    throw new StoreDamagedError(`an account record begins with ${first}, which no flashchain writes`)
  let at = 2
  const field = (): string => {
    const length = 2 * byteAt(hex, at)
    at += 2 + length
    return hex.slice(at - length, at)
  }
  const [nonce, balance] = [field(), field()]
  const hash = (): Uint8Array => decodeValue(hex.slice(at, (at += 64)))
  const storageRoot = first & EMPTY_STORAGE ? KECCAK256_RLP : hash()
  const codeHash = first & NO_CODE ? KECCAK256_NULL : first & SAME_CODE ? previousCodeHash?.() : hash()
  if (codeHash === undefined) throw new StoreDamagedError('an account record keeps the code hash of a record the store does not hold')
  if (at !== hex.length) throw new StoreDamagedError(`an account record of ${hex.length / 2} bytes holds ${at / 2}`)
  return { nonce: nonce === '' ? 0n : BigInt(`0x${nonce}`), balance: balance === '' ? 0n : BigInt(`0x${balance}`), storageRoot, codeHash }
}

/** A record in the older form, an RLP list of four short strings: nonce, balance, storage root, code hash. */
function decodeRlpRecordHex(hex: string): AccountRecord {
  let at = byteAt(hex, 0) <= 0xf7 ? 2 : 2 + 2 * (byteAt(hex, 0) - 0xf7)
  const item = (): string => {
    const first = byteAt(hex, at)
    const start = first < 0x80 ? at : at + 2
    at = first < 0x80 ? at + 2 : start + 2 * (first - 0x80)
    return hex.slice(start, at)
  }
  const [nonce, balance, storageRoot, codeHash] = [item(), item(), item(), item()]
  return {
    nonce: nonce === '' ? 0n : BigInt(`0x${nonce}`),
    balance: balance === '' ? 0n : BigInt(`0x${balance}`),
    storageRoot: storageRoot === EMPTY_ROOT_HEX ? KECCAK256_RLP : decodeValue(storageRoot),
    codeHash: codeHash === NO_CODE_HEX ? KECCAK256_NULL : decodeValue(codeHash),
  }
}

/**
 * A slot's key as a row keeps it: without its leading zero bytes. The EIP-2935 and EIP-4788 contracts every block
 * writes use small slot numbers, whose 32 bytes were mostly zeros. QUERIES.storage pads it back.
 */
export function slotKey(slot: Uint8Array): Uint8Array {
  let zeros = 0
  while (zeros < slot.length && slot[zeros] === 0) zeros++
  return slot.subarray(zeros)
}

const EMPTY_ROOT_HEX = Buffer.from(KECCAK256_RLP).toString('hex').toUpperCase()
const NO_CODE_HEX = Buffer.from(KECCAK256_NULL).toString('hex').toUpperCase()

const byteAt = (hex: string, at: number): number => Number.parseInt(hex.slice(at, at + 2), 16)

/** Bytes from SQLite's hex() (uppercase), in an array of their own. */
export const decodeValue = (hex: string): Uint8Array => hexToBytes(`0x${hex}`)
