// The store's state rows read back (chainStore.ts writes them): at a start, only each key's newest write, which is
// what the head's state and every block after it read; a block before that is read from the rows when a request
// names it (state/older.ts). A start so costs the state's keys, not every write the chain has made.
import { KECCAK256_NULL, equalsBytes } from '@ethereumjs/util'

import { hexToBytes } from '../../hex.ts'
import { createStateDiff } from '../state/types.ts'
import { accountCodec, lastAtOrBefore, record, slotCodec, valueAt, EMPTY } from '../state/versions.ts'
import { decodeRecordHex, decodeValue, slotKey } from './stateRows.ts'
import { StoreDamagedError } from './database.ts'

import type { DatabaseSync, StatementSync } from 'node:sqlite'
import type { NewestWrites, OlderState } from '../state/older.ts'
import type { AccountRecord, StateDiff } from '../state/types.ts'
import type { Versions } from '../state/versions.ts'
import type { Hex } from '../../hex.ts'

/** A slot key as the rows keep it (without leading zero bytes; older stores kept all 32), padded back to 32 bytes. */
const PADDED_SLOT = `'0x' || substr('${'0'.repeat(64)}' || lower(hex(slot)), -64)`
/** A record whose first byte says it holds its code hash (stateRows.ts: no flag but EMPTY_STORAGE). */
const HOLDS_CODE_HASH = "substr(record, 1, 1) IN (x'00', x'01')"

/** The last row of each table of state writes. */
export type StoreMark = { accounts: number; storage: number; clears: number }

/** Before every row. */
export const NO_ROWS: StoreMark = { accounts: 0, storage: 0, clears: 0 }

/**
 * Keys come as lowercase hex from SQLite itself, and values as hex decoded here: node:sqlite gives each blob an array
 * with a buffer of its own, which cost about three times a hex string per row (Node 24, measured on a 200,000
 * transaction store). Rows are in block order by rowid (a block's writes, then its edits; a rewind drops a tail), so a
 * key's newest write up to a block is its row of the highest rowid there, which SQLite's max() picks the row of. The
 * newest writes read only the rows in a range of rowids (`rowid > ? AND rowid <= ?`): those since newestTables.ts
 * last kept them, up to what it keeps at once.
 */
const QUERIES = {
  accounts:
    "SELECT '0x' || lower(hex(address)), block, hex(record), max(rowid) FROM accounts WHERE block <= ? AND rowid > ? AND rowid <= ? GROUP BY address",
  // The code hash a record that keeps its previous one's (SAME_CODE) stands for: the last record before it that
  // holds one, as no record without code comes between (the writer forgets a contract's hash at one).
  codeHashes: `SELECT '0x' || lower(hex(address)), hex(record), max(rowid) FROM accounts WHERE block <= ? AND rowid > ? AND rowid <= ? AND ${HOLDS_CODE_HASH} GROUP BY address`,
  storage: `SELECT '0x' || lower(hex(address)), ${PADDED_SLOT}, block, hex(value), max(rowid) FROM storage WHERE block <= ? AND rowid > ? AND rowid <= ? GROUP BY address, ${PADDED_SLOT}`,
  clears: "SELECT '0x' || lower(hex(address)), block, max(rowid) FROM storage_clears WHERE block <= ? AND rowid > ? AND rowid <= ? GROUP BY address",
  code: "SELECT '0x' || lower(hex(hash)), code FROM code",
  // One key's every write, oldest first: a table scan, as the rows have no index by key (an index would cost each
  // row about as much again). Only reads of blocks before the history's horizon come here.
  accountRows: 'SELECT block, hex(record) FROM accounts WHERE address = ? ORDER BY rowid',
  slotRows: 'SELECT block, hex(value) FROM storage WHERE address = ? AND slot IN (?, ?) ORDER BY rowid',
  clearRows: 'SELECT block FROM storage_clears WHERE address = ? ORDER BY rowid',
}

type Row = unknown[]

/**
 * A statement's rows as arrays of column values. Node 24's node:sqlite returns them as arrays itself, four times
 * faster than as objects; Node 22's has only objects, whose values are taken in column order.
 */
export function rowsOf(statement: StatementSync, ...parameters: (number | Uint8Array)[]): Iterable<Row> {
  const arrays = statement as StatementSync & { setReturnArrays?: (enabled: boolean) => void }
  if (arrays.setReturnArrays !== undefined) {
    arrays.setReturnArrays(true)
    return statement.iterate(...parameters) as IterableIterator<Row>
  }
  const objects = statement.iterate(...parameters) as IterableIterator<Record<string, unknown>>
  return (function* () {
    for (const row of objects) yield Object.values(row)
  })()
}

/** Every contract's code, by its hash. */
export function readCode(db: DatabaseSync): Map<Hex, Uint8Array> {
  const code = new Map<Hex, Uint8Array>()
  for (const [hash, bytes] of rowsOf(db.prepare(QUERIES.code))) code.set(hash as Hex, bytes as Uint8Array)
  return code
}

/** Each key's newest write: an account's record (null when deleted), its storage's last clear, and each slot's value. */
export type NewestKeys = {
  accounts: Map<Hex, { block: number; account: AccountRecord | null }>
  clears: Map<Hex, number>
  slots: Map<Hex, Map<Hex, { block: number; value: Uint8Array }>>
}

/** After every row. */
const ALL_ROWS: StoreMark = { accounts: Number.MAX_SAFE_INTEGER, storage: Number.MAX_SAFE_INTEGER, clears: Number.MAX_SAFE_INTEGER }

/**
 * Each key's newest write up to block `upTo` among the rows after `after` and up to `until`. A record there that
 * keeps its previous one's code hash, with that one before `after`, takes it from `codeHashOf`.
 */
export function readNewestKeys(
  db: DatabaseSync,
  upTo: number,
  after = NO_ROWS,
  codeHashOf?: (address: Hex) => Uint8Array | undefined,
  until = ALL_ROWS,
): NewestKeys {
  const newest: NewestKeys = { accounts: new Map(), clears: new Map(), slots: new Map() }
  let codeHashes: Map<Hex, Uint8Array> | undefined
  const keptCodeHash = (address: Hex) => {
    if (codeHashes === undefined) {
      codeHashes = new Map()
      for (const [holder, record] of rowsOf(db.prepare(QUERIES.codeHashes), upTo, after.accounts, until.accounts))
        codeHashes.set(holder as Hex, decodeRecordHex(record as string).codeHash)
    }
    return codeHashes.get(address) ?? codeHashOf?.(address)
  }
  for (const [address, block, record] of rowsOf(db.prepare(QUERIES.accounts), upTo, after.accounts, until.accounts)) {
    // hex(NULL) is '': a deleted account.
    const account = record === '' ? null : decodeRecordHex(record as string, () => keptCodeHash(address as Hex))
    newest.accounts.set(address as Hex, { block: block as number, account })
  }
  for (const [address, block] of rowsOf(db.prepare(QUERIES.clears), upTo, after.clears, until.clears))
    newest.clears.set(address as Hex, block as number)
  for (const [address, slot, block, value] of rowsOf(db.prepare(QUERIES.storage), upTo, after.storage, until.storage))
    slotsOf(newest, address as Hex).set(slot as Hex, { block: block as number, value: decodeValue(value as string) })
  return newest
}

const slotsOf = (newest: NewestKeys, address: Hex) => {
  let slots = newest.slots.get(address)
  if (slots === undefined) newest.slots.set(address, (slots = new Map()))
  return slots
}

/** `later`'s writes over `base`'s, in `base`; a slot written before its account's last clear is gone. */
export function mergeNewest(base: NewestKeys, later: NewestKeys): NewestKeys {
  for (const [address, written] of later.accounts) base.accounts.set(address, written)
  for (const [address, block] of later.clears) base.clears.set(address, block)
  for (const [address, slots] of later.slots) {
    const into = slotsOf(base, address)
    for (const [slot, written] of slots) into.set(slot, written)
  }
  // A clear in the same block came before that block's writes (StorageDiff).
  for (const [address, block] of base.clears)
    for (const [slot, written] of base.slots.get(address) ?? []) if (written.block < block) base.slots.get(address)!.delete(slot)
  return base
}

/** The newest writes as the diffs of the blocks that wrote them, oldest first: what a history loads. */
export function newestWrites(newest: NewestKeys): NewestWrites {
  const diffs = new Map<number, StateDiff>()
  const diffAt = (block: number) => {
    let diff = diffs.get(block)
    if (diff === undefined) diffs.set(block, (diff = createStateDiff()))
    return diff
  }
  const storageAt = (block: number, address: Hex) => {
    const { storage } = diffAt(block)
    let written = storage.get(address)
    if (written === undefined) storage.set(address, (written = { cleared: false, slots: new Map() }))
    return written
  }
  for (const [address, { block, account }] of newest.accounts) diffAt(block).accounts.set(address, account)
  for (const [address, block] of newest.clears) storageAt(block, address).cleared = true
  for (const [address, slots] of newest.slots) for (const [slot, { block, value }] of slots) storageAt(block, address).slots.set(slot, value)
  return [...diffs].sort(([a], [b]) => a - b)
}

/** Each key's newest write up to block `upTo`, read from every row. */
export const readNewest = (db: DatabaseSync, upTo: number): NewestWrites =>
  newestWrites(mergeNewest({ accounts: new Map(), clears: new Map(), slots: new Map() }, readNewestKeys(db, upTo)))

/** Refuses a key's row of a block before its previous row's: the rows are damaged, and would be read out of order. */
function inOrder(versions: Versions<unknown>, block: number) {
  const last = versions.blocks.at(-1)
  if (last !== undefined && block < last) throw new StoreDamagedError(`the store's state writes of block ${block} come after those of block ${last}`)
}

/** Keys whose every write is kept in memory after a read of an old block: the next read of one is a lookup. */
const KEPT_KEYS = 1024

/**
 * The main thread's older state: the first read of a key before the horizon reads every row of that key (a scan of
 * its table), and keeps them for the next reads of it, for up to KEPT_KEYS keys.
 */
export function createStoredOlderState(db: DatabaseSync): OlderState {
  const statements = {
    accountRows: db.prepare(QUERIES.accountRows),
    slotRows: db.prepare(QUERIES.slotRows),
    clearRows: db.prepare(QUERIES.clearRows),
  }
  const kept = new Map<string, Versions<AccountRecord | null> | Versions<Uint8Array> | number[]>()
  function keep<T extends Versions<AccountRecord | null> | Versions<Uint8Array> | number[]>(key: string, read: () => T): T {
    let value = kept.get(key) as T | undefined
    if (value === undefined) {
      value = read()
      if (kept.size >= KEPT_KEYS) kept.delete(kept.keys().next().value!)
      kept.set(key, value)
    }
    return value
  }

  const accountVersions = (address: Hex) =>
    keep(`account ${address}`, () => {
      const versions: Versions<AccountRecord | null> = { key: address, blocks: [], values: [] }
      let codeHash: Uint8Array | undefined
      for (const [block, hex] of rowsOf(statements.accountRows, hexToBytes(address))) {
        const account = hex === '' ? null : decodeRecordHex(hex as string, () => codeHash)
        codeHash = account === null || equalsBytes(account.codeHash, KECCAK256_NULL) ? undefined : account.codeHash
        inOrder(versions, block as number)
        record(versions, block as number, account, accountCodec)
      }
      return versions
    })

  const clearBlocks = (address: Hex) =>
    keep(`clears ${address}`, () => [...rowsOf(statements.clearRows, hexToBytes(address))].map(([block]) => block as number))

  const slotVersions = (address: Hex, slot: Hex) =>
    keep(`storage ${address} ${slot}`, () => {
      const versions: Versions<Uint8Array> = { key: slot, blocks: [], values: [] }
      const full = hexToBytes(slot)
      for (const [block, hex] of rowsOf(statements.slotRows, hexToBytes(address), slotKey(full), full)) {
        inOrder(versions, block as number)
        record(versions, block as number, decodeValue(hex as string), slotCodec)
      }
      return versions
    })

  return {
    waits: false,
    account(address, block) {
      const versions = accountVersions(address)
      const index = lastAtOrBefore(versions.blocks, block)
      return index < 0 ? undefined : valueAt(versions, index, accountCodec)
    },
    storage(address, slot, block) {
      const clears = clearBlocks(address)
      const cleared = lastAtOrBefore(clears, block)
      const versions = slotVersions(address, slot)
      const index = lastAtOrBefore(versions.blocks, block)
      if (index < 0) return cleared < 0 ? undefined : EMPTY
      // A clear in the same block came before that block's writes.
      return cleared >= 0 && clears[cleared]! > versions.blocks[index]! ? EMPTY : valueAt(versions, index, slotCodec)
    },
    newest: (block) => readNewest(db, block),
    forget: () => kept.clear(),
  }
}
