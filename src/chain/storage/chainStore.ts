import { KECCAK256_NULL, bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util'

import { BLOCK_TABLES, openBlockTables } from './blockTables.ts'
import { StoreDamagedError, inTransaction } from './database.ts'
import { keepsWholeBlocks, splitWholeBlocks } from './migrate.ts'
import { openNewestTables } from './newestTables.ts'
import { createStoredOlderState, readCode } from './olderRows.ts'
import { encodeRecord, slotKey } from './stateRows.ts'
import { createStateDiff } from '../state/types.ts'

import type { DatabaseSync } from 'node:sqlite'
import type { LogCriteria, LogRow, StoredBlock, StoredTransaction } from './blockTables.ts'
import type { NewestTablesOptions } from './newestTables.ts'
import type { StateHistory } from '../state/history.ts'
import type { OlderState } from '../state/older.ts'
import type { StateDiff } from '../state/types.ts'
import type { StoreMark } from './olderRows.ts'
import type { Hex } from '../../hex.ts'

export type { StoreMark } from './olderRows.ts'

/**
 * `sender`: set for an impersonated account's transaction. `publicKey`: the signer's key recovered at admission, so
 * that a restart need not recover it again (sender recovery was most of a restart with a full pool).
 */
export type StoredPoolTransaction = { hash: Hex; raw: Uint8Array; sender?: Hex | undefined; publicKey?: Uint8Array | undefined }

export type { LogCriteria, LogRow, StoredBlock, StoredTransaction } from './blockTables.ts'

/**
 * SQLite persistence (WAL): sealed blocks with their receipts and state writes, and the pool. A sealed block is
 * written in one transaction; a transaction is in the pool table before its hash is returned. WAL with
 * synchronous=NORMAL survives a crash of the process (kill -9), which is the promise made to users.
 */
export type ChainStore = {
  getMeta(key: string): string | undefined
  setMeta(key: string, value: string): void
  isEmpty(): boolean
  /** The newest block's number; undefined when there is no block. */
  head(): bigint | undefined
  /** The hashes of the blocks from `from` on, in order, 32 bytes each. */
  blockHashes(from: bigint): Uint8Array
  /** The number of the block with this hash, if it is stored. */
  numberOf(hash: Hex): bigint | undefined
  /** One stored block; undefined if there is none with that number. */
  block(number: bigint): StoredBlock | undefined
  /** One stored block without its transactions, their hashes and the whole block's size (blockTables.ts). */
  summary(number: bigint): { body: Uint8Array; hashes: Hex[]; size: number } | undefined
  /** One stored block's header fields, undecoded, without its transactions. */
  header(number: bigint): Uint8Array[] | undefined
  /** Where a sealed transaction is, by its hash. */
  locate(hash: Hex): { number: bigint; index: number } | undefined
  /** A sealed transaction, its sender and receipt, by its hash, without reading the rest of its block. */
  transaction(hash: Hex): StoredTransaction | undefined
  /**
   * The transactions of blocks `from` to `to` that may hold logs matching every criterion (keys from blockRows.ts),
   * found through the log index: the caller matches the logs themselves.
   */
  logRows(from: bigint, to: bigint, criteria: LogCriteria): Iterable<LogRow>
  /**
   * Loads the stored state into an empty history: each key's newest write and every contract's code. Blocks before
   * the head are read from the rows when a request names one (`older`).
   */
  loadState(history: StateHistory): void
  /** The state of blocks before a history's horizon, read from the rows (olderRows.ts). */
  readonly older: OlderState
  writeBlock(block: StoredBlock & { hash: Hex; transactionHashes: Hex[] }, diff: StateDiff): void
  /** Writes a test-control edit of block `number`'s state, after what that block wrote (an `edit` HistoryChange). */
  writeEdit(number: bigint, diff: StateDiff): void
  /** Where the state writes end now: a rewind to this mark forgets every write made after it. */
  mark(): StoreMark
  /**
   * In one transaction: forgets the blocks after `number` and every state write after `mark` (none given: every
   * write, for a reset that writes block 0's again as `genesis`), puts `pool` in the pool's place, and runs `within`,
   * so that a crash leaves the chain as it was before or after, never between.
   */
  rewind(number: bigint, to: { mark: StoreMark } | { genesis: StateDiff }, pool: StoredPoolTransaction[], within?: () => void): void
  /**
   * In one transaction: forgets the blocks after `number` and the state they wrote, where no mark was taken (a
   * replica following its sequencer's rewind). State rows are written in block order (a block's, then the head's
   * edits), so their rowids rise with the block: the first row after `number` is found by a binary search on rowid,
   * and everything from it on is a range of the rowid's b-tree, where a test of `block` would scan the whole table.
   */
  truncate(number: bigint): void
  /**
   * In one transaction: forgets every block, state write and pooled transaction, writes `first` as the only block
   * (a reset to another fork block), and runs `within`.
   */
  replace(first: StoredBlock & { hash: Hex }, diff: StateDiff, within?: () => void): void
  /** `sender` only for a transaction sent as an impersonated account, whose signature recovers no one. */
  addPoolTransaction(hash: Hex, raw: Uint8Array, sender?: Hex, publicKey?: Uint8Array): void
  removePoolTransactions(hashes: Iterable<Hex>): void
  poolTransactions(): StoredPoolTransaction[]
}

/** The chain's tables: what a replica starts from (snapshot.ts), where the rest of the database is the wallet's. */
export const CHAIN_TABLES = [
  'meta',
  'blocks',
  'transactions',
  'log_keys',
  'accounts',
  'storage',
  'storage_clears',
  'code',
  'pool',
  // The meta's newest_mark says what these hold: a copy without them would read as a state without those keys.
  'newest_accounts',
  'newest_storage',
  'newest_clears',
] as const

const schema = `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS accounts (block INTEGER NOT NULL, address BLOB NOT NULL, record BLOB);
  CREATE TABLE IF NOT EXISTS storage (block INTEGER NOT NULL, address BLOB NOT NULL, slot BLOB NOT NULL, value BLOB NOT NULL);
  CREATE TABLE IF NOT EXISTS storage_clears (block INTEGER NOT NULL, address BLOB NOT NULL);
  CREATE TABLE IF NOT EXISTS code (hash BLOB PRIMARY KEY, code BLOB NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS pool (hash BLOB PRIMARY KEY, raw BLOB NOT NULL, seq INTEGER NOT NULL, sender BLOB, public_key BLOB) WITHOUT ROWID;
`

/** Contracts whose last written code hash is kept for their next record (writeDiff). */
const KEPT_CODE_HASHES = 1024

const senderBytes = (sender: Hex | undefined) => (sender === undefined ? null : hexToBytes(sender))

/**
 * How this flashchain keeps blocks and state, as the store's meta names it: blocks split into rows (blockRows.ts),
 * the block without its transactions deflated (blockEncoding.ts); account records and slot keys in their short forms
 * (stateRows.ts); each key's newest write kept beside them (newestTables.ts). Stores before it named none (whole
 * blocks as they were) or `rlp-or-deflated-1` (whole blocks, deflated when small), and are split at their first open
 * here, or `rows-1` (account records as RLP, slot keys of 32 bytes) or `rows-2` (no newest tables), which are read
 * as they are. A flashchain before this one refuses a store this one has opened.
 */
const BLOCK_ENCODING = 'rows-3'
/**
 * The encodings of stores before this one: whole blocks (none named, or `rlp-or-deflated-1`), `rows-1`, or `rows-2`
 * (without the newest tables, newestTables.ts, which a flashchain that wrote rows-2 would leave behind its writes).
 */
const OLDER_ENCODINGS = new Set([undefined, 'rlp-or-deflated-1', 'rows-1', 'rows-2'])

/** `newestOptions`: how the newest tables are brought up to date (newestTables.ts; tests make its counts small). */
export function openChainStore(db: DatabaseSync, log?: (line: string) => void, newestOptions: NewestTablesOptions = {}): ChainStore {
  db.exec(schema)
  const encoding = (db.prepare('SELECT value FROM meta WHERE key = ?').get('block_encoding') as { value: string } | undefined)?.value
  if (encoding !== BLOCK_ENCODING && !OLDER_ENCODINGS.has(encoding)) {
    throw new StoreDamagedError(`this store keeps its blocks as ${encoding}, which a newer flashchain wrote; this one reads ${BLOCK_ENCODING}`)
  }
  if (keepsWholeBlocks(db)) {
    const started = performance.now()
    const count = splitWholeBlocks(db)
    log?.(`rewrote the store's ${count} blocks as rows, once (${Math.round(performance.now() - started)} ms)`)
  }
  db.exec(BLOCK_TABLES)
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
    'block_encoding',
    BLOCK_ENCODING,
  )
  const blocks = openBlockTables(db)
  // Stores written before impersonation have no sender column.
  const poolColumns = (db.prepare('SELECT name FROM pragma_table_info(?)').all('pool') as { name: string }[]).map((column) => column.name)
  if (!poolColumns.includes('sender')) db.exec('ALTER TABLE pool ADD COLUMN sender BLOB')
  if (!poolColumns.includes('public_key')) db.exec('ALTER TABLE pool ADD COLUMN public_key BLOB')

  // A slot set to zero, code set to none and a block without transactions are empty byte strings. Node 22's node:sqlite
  // binds a Uint8Array whose buffer holds no memory (new Uint8Array(new ArrayBuffer(0))) as NULL, so the columns that
  // can hold one read NULL as the empty blob they stand for.
  const statements = {
    getMeta: db.prepare('SELECT value FROM meta WHERE key = ?'),
    setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    anyBlock: db.prepare('SELECT 1 FROM blocks LIMIT 1'),
    insertAccount: db.prepare('INSERT INTO accounts (block, address, record) VALUES (?, ?, ?)'),
    insertStorage: db.prepare("INSERT INTO storage (block, address, slot, value) VALUES (?, ?, ?, COALESCE(?, x''))"),
    insertClear: db.prepare('INSERT INTO storage_clears (block, address) VALUES (?, ?)'),
    insertCode: db.prepare("INSERT OR IGNORE INTO code (hash, code) VALUES (?, COALESCE(?, x''))"),
    addPool: db.prepare('INSERT OR IGNORE INTO pool (hash, raw, seq, sender, public_key) VALUES (?, ?, ?, ?, ?)'),
    lastPoolSeq: db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM pool'),
    removePool: db.prepare('DELETE FROM pool WHERE hash = ?'),
    pool: db.prepare('SELECT hash, raw, sender, public_key FROM pool ORDER BY seq'),
    mark: db.prepare(
      'SELECT (SELECT COALESCE(MAX(rowid), 0) FROM accounts) AS accounts, (SELECT COALESCE(MAX(rowid), 0) FROM storage) AS storage, (SELECT COALESCE(MAX(rowid), 0) FROM storage_clears) AS clears',
    ),
    // Every row written after a mark has a higher rowid (SQLite gives the next one), blocks after the snapshot's
    // head included: a range of the rowid's b-tree, where a test of `block` would scan the whole table.
    dropAccounts: db.prepare('DELETE FROM accounts WHERE rowid > ?'),
    dropStorage: db.prepare('DELETE FROM storage WHERE rowid > ?'),
    dropClears: db.prepare('DELETE FROM storage_clears WHERE rowid > ?'),
    rowAt: {
      accounts: db.prepare('SELECT rowid, block FROM accounts WHERE rowid >= ? ORDER BY rowid LIMIT 1'),
      storage: db.prepare('SELECT rowid, block FROM storage WHERE rowid >= ? ORDER BY rowid LIMIT 1'),
      storage_clears: db.prepare('SELECT rowid, block FROM storage_clears WHERE rowid >= ? ORDER BY rowid LIMIT 1'),
    },
    clearPool: db.prepare('DELETE FROM pool'),
  }

  const newest = openNewestTables(
    db,
    {
      get: (key) => (statements.getMeta.get(key) as { value: string } | undefined)?.value,
      set: (key, value) => void statements.setMeta.run(key, value),
    },
    newestOptions,
  )

  const older = createStoredOlderState(db)

  /**
   * The code hash of the record last written for each of the contracts written lately, so that the next record of one
   * can say it keeps it (encodeRecord). Bounded, oldest forgotten first, and forgotten whole when rows are dropped.
   */
  const codeHashes = new Map<Hex, Uint8Array>()
  /**
   * A transaction that writes or drops state rows. One rolled back leaves codeHashes naming code its rows never
   * stored, which the next record of that contract would point at: it is forgotten whole, which costs a record's 32
   * bytes at most. The newest tables' mark goes back with the transaction, and what this process knows of it too.
   */
  function writing(work: () => void) {
    const restoreNewest = newest.saved()
    try {
      inTransaction(db, work)
    } catch (error) {
      codeHashes.clear()
      restoreNewest()
      throw error
    }
  }
  function writeDiff(number: number, diff: StateDiff) {
    let rows = diff.accounts.size
    for (const [hash, code] of diff.code) statements.insertCode.run(hexToBytes(hash), code)
    for (const [address, account] of diff.accounts) {
      const previous = codeHashes.get(address)
      statements.insertAccount.run(number, hexToBytes(address), account === null ? null : encodeRecord(account, previous))
      if (previous !== undefined) codeHashes.delete(address)
      if (account === null || equalsBytes(account.codeHash, KECCAK256_NULL)) continue
      codeHashes.set(address, account.codeHash)
      if (codeHashes.size > KEPT_CODE_HASHES) codeHashes.delete(codeHashes.keys().next().value!)
    }
    for (const [address, storage] of diff.storage) {
      const key = hexToBytes(address)
      if (storage.cleared) statements.insertClear.run(number, key)
      for (const [slot, value] of storage.slots) statements.insertStorage.run(number, key, slotKey(hexToBytes(slot)), value)
      rows += storage.slots.size + (storage.cleared ? 1 : 0)
    }
    newest.written(rows)
  }

  // The pool's arrival order. Only this process writes the database, so the counter is read once: a MAX(seq) per
  // insert scanned the whole table (seq has no index), which made a burst of n transactions cost O(n²).
  let poolSeq = (statements.lastPoolSeq.get() as { seq: number }).seq

  return {
    getMeta: (key) => (statements.getMeta.get(key) as { value: string } | undefined)?.value,
    setMeta: (key, value) => void statements.setMeta.run(key, value),
    isEmpty: () => statements.anyBlock.get() === undefined,

    head: () => blocks.head(),
    blockHashes: (from) => blocks.hashes(from),
    numberOf: (hash) => blocks.numberOf(hash),
    block: (number) => blocks.block(number),
    header: (number) => blocks.header(number),
    summary: (number) => blocks.summary(number),
    locate: (hash) => blocks.locate(hash),
    transaction: (hash) => blocks.transaction(hash),
    logRows: (from, to, criteria) => blocks.logRows(from, to, criteria),

    loadState(history) {
      const head = Number(blocks.head() ?? -1n)
      const writes = newest.load(head)
      // Code is kept by its hash, whatever block first wrote it: it goes in with the oldest writes.
      if (writes.length === 0) writes.push([head, createStateDiff()])
      for (const [hash, bytes] of readCode(db)) writes[0]![1].code.set(hash, bytes)
      history.load(writes, head, older)
    },
    older,

    writeBlock(block, diff) {
      writing(() => {
        blocks.write(block, block.transactionHashes)
        writeDiff(Number(block.number), diff)
        for (const hash of block.transactionHashes) statements.removePool.run(hexToBytes(hash))
      })
    },

    replace(first, diff, within) {
      writing(() => {
        blocks.dropAfter(-1n)
        newest.dropping()
        statements.dropAccounts.run(-1)
        codeHashes.clear()
        statements.dropStorage.run(-1)
        statements.dropClears.run(-1)
        statements.clearPool.run()
        blocks.write(first, [])
        writeDiff(Number(first.number), diff)
        within?.()
      })
      poolSeq = 0
    },

    writeEdit(number, diff) {
      writing(() => writeDiff(Number(number), diff))
    },

    mark: () => ({ ...(statements.mark.get() as StoreMark) }),

    rewind(number, to, pool, within) {
      const block = Number(number)
      writing(() => {
        blocks.dropAfter(number)
        // A reset forgets the first block's writes too (rowid > -1 is every row), then writes its state again.
        const mark = 'mark' in to ? to.mark : { accounts: -1, storage: -1, clears: -1 }
        newest.dropping(mark)
        statements.dropAccounts.run(mark.accounts)
        codeHashes.clear()
        statements.dropStorage.run(mark.storage)
        statements.dropClears.run(mark.clears)
        if ('genesis' in to) writeDiff(block, to.genesis)
        statements.clearPool.run()
        for (const [seq, entry] of pool.entries())
          statements.addPool.run(hexToBytes(entry.hash), entry.raw, seq + 1, senderBytes(entry.sender), entry.publicKey ?? null)
        // What `within` adds to the pool (a participant's, such as the deposits waiting) comes after these, in order.
        poolSeq = pool.length
        within?.()
      })
    },

    truncate(number) {
      const block = Number(number)
      /** The last rowid of `table` written for a block up to `number`; 0 when none was. */
      const lastUpTo = (table: keyof typeof statements.rowAt) => {
        const at = (rowid: number) => statements.rowAt[table].get(rowid) as { rowid: number; block: number } | undefined
        // The smallest rowid whose row (or the first after it) belongs to a later block.
        let [lo, hi] = [1, (statements.mark.get() as StoreMark)[table === 'storage_clears' ? 'clears' : table] + 1]
        while (lo < hi) {
          const mid = Math.floor((lo + hi) / 2)
          const row = at(mid)
          if (row === undefined || row.block > block) hi = mid
          else lo = row.rowid + 1
        }
        return lo - 1
      }
      writing(() => {
        blocks.dropAfter(number)
        const mark = { accounts: lastUpTo('accounts'), storage: lastUpTo('storage'), clears: lastUpTo('storage_clears') }
        newest.dropping(mark)
        statements.dropAccounts.run(mark.accounts)
        codeHashes.clear()
        statements.dropStorage.run(mark.storage)
        statements.dropClears.run(mark.clears)
      })
    },

    addPoolTransaction: (hash, raw, sender, publicKey) =>
      void statements.addPool.run(hexToBytes(hash), raw, ++poolSeq, senderBytes(sender), publicKey ?? null),
    removePoolTransactions(hashes) {
      inTransaction(db, () => {
        for (const hash of hashes) statements.removePool.run(hexToBytes(hash))
      })
    },
    poolTransactions: () =>
      (statements.pool.all() as { hash: Uint8Array; raw: Uint8Array; sender: Uint8Array | null; public_key: Uint8Array | null }[]).map((row) => ({
        hash: bytesToHex(row.hash) as Hex,
        raw: row.raw,
        sender: row.sender === null ? undefined : (bytesToHex(row.sender) as Hex),
        publicKey: row.public_key ?? undefined,
      })),
  }
}
