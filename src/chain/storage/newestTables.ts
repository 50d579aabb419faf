// Each key's newest write, kept in tables of their own beside the rows (olderRows.ts), so that a start reads the
// state's keys and the rows written since the tables were last brought up to date, however long the chain. Once
// REFRESH_ROWS rows are behind, each block's write brings up to ROWS_PER_BLOCK more of each table into them, in its
// own transaction, so that no block waits for many. A rewind that drops rows they hold drops them, and the blocks
// after bring every row in again, a step at a time.
import { hexToBytes } from '../../hex.ts'
import { StoreDamagedError } from './database.ts'
import { NO_ROWS, mergeNewest, newestWrites, readNewestKeys, rowsOf } from './olderRows.ts'
import { decodeRecordHex, decodeValue, encodeRecord, slotKey } from './stateRows.ts'

import type { DatabaseSync } from 'node:sqlite'
import type { NewestWrites } from '../state/older.ts'
import type { NewestKeys, StoreMark } from './olderRows.ts'
import type { Hex } from '../../hex.ts'

export const NEWEST_TABLES = `
  CREATE TABLE IF NOT EXISTS newest_accounts (address BLOB PRIMARY KEY, block INTEGER NOT NULL, record BLOB) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS newest_storage (
    address BLOB NOT NULL, slot BLOB NOT NULL, block INTEGER NOT NULL, value BLOB NOT NULL, PRIMARY KEY (address, slot)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS newest_clears (address BLOB PRIMARY KEY, block INTEGER NOT NULL) WITHOUT ROWID;
`

/**
 * Rows written after the tables' mark before they are brought up to date: what a start reads beyond the state's keys
 * (50,000 rows take SQLite about 0.15 s to group).
 */
const REFRESH_ROWS = 50_000

/**
 * Rows of each table one block's write brings into the tables at most, so that a block is not held up by the rows of
 * many: 50,000 took about 0.3 s. A busy chain that writes more a block catches up when it is quieter.
 */
const ROWS_PER_BLOCK = 5_000

/** The meta key of the mark up to which the tables hold every row's write. */
const MARK_KEY = 'newest_mark'

const PADDED_SLOT = `'0x' || substr('${'0'.repeat(64)}' || lower(hex(slot)), -64)`

export type NewestTablesOptions = { refreshRows?: number; rowsPerBlock?: number }

export type NewestTables = {
  /** Each key's newest write as of the store's head: the tables' and the rows' since. It writes nothing. */
  load(head: number): NewestWrites
  /** Counts rows just written; brings the tables a step up to date once REFRESH_ROWS are behind. In a transaction. */
  written(rows: number): void
  /** Rows after `mark` are being dropped (every row with none): the tables go, if they hold any. In a transaction. */
  dropping(mark?: StoreMark): void
  /**
   * What it knows of the tables before a transaction, and what takes it back there when the transaction rolls back:
   * the tables and the meta's mark go back with it, and what it knows must follow.
   */
  saved(): () => void
}

export function openNewestTables(
  db: DatabaseSync,
  meta: { get(key: string): string | undefined; set(key: string, value: string): void },
  { refreshRows = REFRESH_ROWS, rowsPerBlock = ROWS_PER_BLOCK }: NewestTablesOptions = {},
): NewestTables {
  db.exec(NEWEST_TABLES)
  const statements = {
    accounts: db.prepare("SELECT '0x' || lower(hex(address)), block, hex(record) FROM newest_accounts"),
    codeHash: db.prepare('SELECT hex(record) AS record FROM newest_accounts WHERE address = ?'),
    clears: db.prepare("SELECT '0x' || lower(hex(address)), block FROM newest_clears"),
    slots: db.prepare(`SELECT '0x' || lower(hex(address)), ${PADDED_SLOT}, block, hex(value) FROM newest_storage`),
    putAccount: db.prepare('INSERT OR REPLACE INTO newest_accounts (address, block, record) VALUES (?, ?, ?)'),
    putClear: db.prepare('INSERT OR REPLACE INTO newest_clears (address, block) VALUES (?, ?)'),
    dropSlotsBefore: db.prepare('DELETE FROM newest_storage WHERE address = ? AND block < ?'),
    putSlot: db.prepare("INSERT OR REPLACE INTO newest_storage (address, slot, block, value) VALUES (?, ?, ?, COALESCE(?, x''))"),
    last: db.prepare(
      'SELECT (SELECT COALESCE(MAX(rowid), 0) FROM accounts) AS accounts, (SELECT COALESCE(MAX(rowid), 0) FROM storage) AS storage, (SELECT COALESCE(MAX(rowid), 0) FROM storage_clears) AS clears',
    ),
  }
  const storedMark = meta.get(MARK_KEY)
  let mark: StoreMark = storedMark === undefined ? NO_ROWS : JSON.parse(storedMark)
  const last = () => ({ ...(statements.last.get() as StoreMark) })
  const behind = (at: StoreMark) => at.accounts - mark.accounts + (at.storage - mark.storage) + (at.clears - mark.clears)
  let since = behind(last())

  /** The code hash the tables hold for an account: a record there always holds its own. */
  const codeHashOf = (address: Hex) => {
    const row = statements.codeHash.get(hexToBytes(address)) as { record: string } | undefined
    return row === undefined || row.record === '' ? undefined : decodeRecordHex(row.record).codeHash
  }

  /** The rows' newest writes since the mark up to `until`, written into the tables. */
  function refresh(until: StoreMark) {
    const later = readNewestKeys(db, Number.MAX_SAFE_INTEGER, mark, codeHashOf, until)
    for (const [address, { block, account }] of later.accounts)
      statements.putAccount.run(hexToBytes(address), block, account === null ? null : encodeRecord(account))
    for (const [address, block] of later.clears) {
      statements.putClear.run(hexToBytes(address), block)
      statements.dropSlotsBefore.run(hexToBytes(address), block)
    }
    for (const [address, slots] of later.slots) {
      const key = hexToBytes(address)
      const cleared = later.clears.get(address) ?? -1
      for (const [slot, { block, value }] of slots) if (block >= cleared) statements.putSlot.run(key, slotKey(hexToBytes(slot)), block, value)
    }
    mark = until
    since = behind(last())
    meta.set(MARK_KEY, JSON.stringify(mark))
  }

  return {
    load(head) {
      const kept: NewestKeys = { accounts: new Map(), clears: new Map(), slots: new Map() }
      for (const [address, block, record] of rowsOf(statements.accounts))
        kept.accounts.set(address as Hex, { block: block as number, account: record === '' ? null : decodeRecordHex(record as string) })
      for (const [address, block] of rowsOf(statements.clears)) kept.clears.set(address as Hex, block as number)
      for (const [address, slot, block, value] of rowsOf(statements.slots)) {
        let slots = kept.slots.get(address as Hex)
        if (slots === undefined) kept.slots.set(address as Hex, (slots = new Map()))
        slots.set(slot as Hex, { block: block as number, value: decodeValue(value as string) })
      }
      since = behind(last())
      const later = since === 0 ? undefined : readNewestKeys(db, Number.MAX_SAFE_INTEGER, mark, codeHashOf)
      const newest = newestWrites(later === undefined ? kept : mergeNewest(kept, later))
      // A block's state rows are written with it: rows past the head are damage, and would read as no block's.
      if (newest.length > 0 && newest.at(-1)![0] > head)
        throw new StoreDamagedError(`the store's state writes reach block ${newest.at(-1)![0]}, past its head ${head}`)
      return newest
    },

    written(rows) {
      since += rows
      if (since < refreshRows) return
      const now = last()
      const step = (table: keyof StoreMark) => Math.min(now[table], mark[table] + rowsPerBlock)
      refresh({ accounts: step('accounts'), storage: step('storage'), clears: step('clears') })
    },

    saved() {
      const before = { mark, since }
      return () => ({ mark, since } = before)
    },

    dropping(to) {
      if (to !== undefined && to.accounts >= mark.accounts && to.storage >= mark.storage && to.clears >= mark.clears) return
      db.exec('DELETE FROM newest_accounts; DELETE FROM newest_storage; DELETE FROM newest_clears')
      mark = NO_ROWS
      meta.set(MARK_KEY, JSON.stringify(mark))
      // Every row kept is behind them now: the next blocks bring them in (written counts them again after a step).
      since = Number.POSITIVE_INFINITY
    },
  }
}
