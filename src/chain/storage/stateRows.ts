// The store's state writes as rows (chainStore.ts writes them): an account's record, a slot's value and a clear of an
// account's storage, each with the block that wrote it, and code by its hash. This module reads them back into a
// history at the start, which holds every key of the state: its cost per row is most of a restart.
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_NULL, KECCAK256_RLP, bigIntToUnpaddedBytes } from '@ethereumjs/util'

import { hexToBytes } from '../../hex.ts'
import { StoreDamagedError } from './database.ts'

import type { DatabaseSync, StatementSync } from 'node:sqlite'
import type { StateHistory } from '../state/history.ts'
import type { AccountRecord, StateDiff, StorageDiff } from '../state/types.ts'
import type { Hex } from '../../hex.ts'

export function encodeRecord(account: AccountRecord): Uint8Array {
  return RLP.encode([bigIntToUnpaddedBytes(account.nonce), bigIntToUnpaddedBytes(account.balance), account.storageRoot, account.codeHash])
}

/**
 * An account row's record, from SQLite's hex() of it (see QUERIES). Its hashes are arrays of their own, and the two
 * most accounts have (an externally owned one has both) are the shared constants, so such a record holds no array.
 */
export function decodeRecordHex(hex: string): AccountRecord {
  // The record is an RLP list of four short strings: nonce, balance, storage root, code hash.
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
  storage: "SELECT block, '0x' || lower(hex(address)), '0x' || lower(hex(slot)), hex(value) FROM storage ORDER BY rowid",
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
      diff.accounts.set(address as Hex, record === '' ? null : decodeRecordHex(record as string))
    }
    for (const [, address] of clears.take(block)) storageOf(address as Hex).cleared = true
    for (const [, address, slot, value] of storage.take(block)) storageOf(address as Hex).slots.set(slot as Hex, decodeValue(value as string))
    history.commit(BigInt(block), diff)
  }
}
