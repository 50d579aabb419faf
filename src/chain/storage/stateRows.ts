// The store's state writes as rows (chainStore.ts writes them): an account's record, a slot's value and a clear of an
// account's storage, each with the block that wrote it, and code by its hash. This module reads them back into a
// history at the start, which holds every key of the state: its cost per row is most of a restart.
import { KECCAK256_NULL, KECCAK256_RLP, bigIntToUnpaddedBytes, equalsBytes } from '@ethereumjs/util'

import { hexToBytes } from '../../hex.ts'
import { StoreDamagedError } from './database.ts'

import type { DatabaseSync, StatementSync } from 'node:sqlite'
import type { StateHistory } from '../state/history.ts'
import type { AccountRecord, StateDiff, StorageDiff } from '../state/types.ts'
import type { Hex } from '../../hex.ts'

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

/**
 * Keys come as lowercase hex from SQLite itself, and values as hex decoded here: node:sqlite gives each blob an array
 * with a buffer of its own, which cost about three times a hex string per row (Node 24, measured on a 200,000
 * transaction store), and an array made here for a few bytes is kept in V8's heap.
 */
const QUERIES = {
  accounts: "SELECT block, '0x' || lower(hex(address)), hex(record) FROM accounts ORDER BY rowid",
  clears: "SELECT block, '0x' || lower(hex(address)) FROM storage_clears ORDER BY rowid",
  // A slot's key is kept without its leading zero bytes (slotKey); older stores kept all 32.
  storage: `SELECT block, '0x' || lower(hex(address)), '0x' || substr('${'0'.repeat(64)}' || lower(hex(slot)), -64), hex(value) FROM storage ORDER BY rowid`,
  code: "SELECT '0x' || lower(hex(hash)), code FROM code",
}

type Row = unknown[]

/**
 * A statement's rows as arrays of column values. Node 24's node:sqlite returns them as arrays itself, four times
 * faster than as objects; Node 22's has only objects, whose values are taken in column order.
 */
function rowsOf(statement: StatementSync): Iterator<Row> {
  const arrays = statement as StatementSync & { setReturnArrays?: (enabled: boolean) => void }
  if (arrays.setReturnArrays !== undefined) {
    arrays.setReturnArrays(true)
    return (statement.iterate() as IterableIterator<Row>)[Symbol.iterator]()
  }
  const objects = statement.iterate() as IterableIterator<Record<string, unknown>>
  return (function* () {
    for (const row of objects) yield Object.values(row)
  })()
}

/** A cursor over rows whose first column is the block, ascending: the rows of one block at a time. */
function byBlock(rows: Iterator<Row>) {
  let next = rows.next()
  return {
    /** The next row's block; Infinity past the last. */
    peek: (): number => (next.done === true ? Number.POSITIVE_INFINITY : (next.value[0] as number)),
    *take(block: number): Generator<Row> {
      while (next.done !== true && next.value[0] === block) {
        yield next.value
        next = rows.next()
      }
    },
  }
}

/** Bytes from SQLite's hex() (uppercase), in an array of their own. */
const decodeValue = (hex: string): Uint8Array => hexToBytes(`0x${hex}`)

/**
 * Replays every stored state write into `history`, a block at a time, oldest first. A table's rows are in block
 * order by rowid (a block's writes, then its edits, and a rewind drops a tail), so each is read straight along its
 * rowid and the three are merged by block.
 */
export function loadStateRows(db: DatabaseSync, history: StateHistory): void {
  const code = new Map<Hex, Uint8Array>()
  const codes = rowsOf(db.prepare(QUERIES.code))
  for (let row = codes.next(); row.done !== true; row = codes.next()) code.set(row.value[0] as Hex, row.value[1] as Uint8Array)
  if (code.size > 0) history.commit(0n, { accounts: new Map(), storage: new Map(), code })

  // The code hash of each contract's last record read, for a record that keeps it (encodeRecord).
  const codeHashes = new Map<Hex, Uint8Array>()
  const accounts = byBlock(rowsOf(db.prepare(QUERIES.accounts)))
  const clears = byBlock(rowsOf(db.prepare(QUERIES.clears)))
  const storage = byBlock(rowsOf(db.prepare(QUERIES.storage)))
  for (let last = Number.NEGATIVE_INFINITY; ; ) {
    const block = Math.min(accounts.peek(), clears.peek(), storage.peek())
    if (block === Number.POSITIVE_INFINITY) return
    if (block < last) throw new StoreDamagedError(`the store's state writes of block ${block} come after those of block ${last}`)
    last = block
    const diff: StateDiff = { accounts: new Map(), storage: new Map(), code: new Map() }
    const storageOf = (address: Hex): StorageDiff => {
      let written = diff.storage.get(address)
      if (written === undefined) diff.storage.set(address, (written = { cleared: false, slots: new Map() }))
      return written
    }
    for (const [, address, record] of accounts.take(block)) {
      // hex(NULL) is '': a deleted account.
      const account = record === '' ? null : decodeRecordHex(record as string, () => codeHashes.get(address as Hex))
      diff.accounts.set(address as Hex, account)
      if (account === null || account.codeHash === KECCAK256_NULL) codeHashes.delete(address as Hex)
      else codeHashes.set(address as Hex, account.codeHash)
    }
    for (const [, address] of clears.take(block)) storageOf(address as Hex).cleared = true
    for (const [, address, slot, value] of storage.take(block)) storageOf(address as Hex).slots.set(slot as Hex, decodeValue(value as string))
    history.commit(BigInt(block), diff)
  }
}
