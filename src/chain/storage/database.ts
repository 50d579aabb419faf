import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

import type { DatabaseSync } from 'node:sqlite'

// Loaded when the module runs, not when it links, so that an older Node without node:sqlite reaches the version
// check (src/runtime/nodeVersion.ts) and its one line.
const sqlite = process.getBuiltinModule('node:sqlite')

/** The database's file in a data dir; SQLite keeps its write-ahead log beside it, with `-wal` appended. */
const DATABASE_FILE = 'chain.sqlite'
/** Which process holds the data dir, for the message a second one prints; the lock itself is SQLite's. */
const PID_FILE = 'flashchain.pid'

/**
 * The one database of a data dir, shared by the chain and the wallet; in memory without a data dir.
 *
 * A data dir belongs to one process: the database is opened in SQLite's exclusive locking mode, so a second process
 * is refused at once, naming the first. The operating system drops the lock with the process, so a `kill -9` leaves
 * no stale lock behind. Before opening, the write-ahead log is checked for a truncation in the middle of a frame.
 *
 * After a process that did not close the store (its pid file is still there: a crash, a `kill -9`, a lost machine),
 * the whole database is checked with SQLite's quick_check, and a start on a damaged store is refused, never silent.
 * After a clean close it is not: quick_check reads every page, which made a restart cost what the chain holds (0.2–0.4 s
 * for a 170 MB store in the page cache, 4 s after the cache was dropped). SQLite still reports a damaged page it reads.
 */
export function openDatabase(options: { dataDir?: string; fresh?: boolean; log?: ((line: string) => void) | undefined }): DatabaseSync {
  const { dataDir } = options
  if (dataDir === undefined) return configure(new sqlite.DatabaseSync(':memory:'))
  const path = join(dataDir, DATABASE_FILE)
  if (options.fresh === true && existsSync(path)) {
    // Only a data dir no process holds may be wiped.
    exclusive(new sqlite.DatabaseSync(path), dataDir).close()
    rmSync(dataDir, { recursive: true, force: true })
  }
  mkdirSync(dataDir, { recursive: true })
  checkWriteAheadLog(`${path}-wal`)
  const unclosed = existsSync(join(dataDir, PID_FILE))
  const db = exclusive(new sqlite.DatabaseSync(path), dataDir)
  if (unclosed) {
    const started = performance.now()
    try {
      quickCheck(db, path)
    } catch (error) {
      db.close()
      throw error
    }
    options.log?.(`the store was not closed by the last process: checked it whole (${Math.round(performance.now() - started)} ms)`)
  }
  writeFileSync(join(dataDir, PID_FILE), `${process.pid}\n`)
  return db
}

/** SQLite's quick_check of every page: a damaged store is refused, whether the check reports it or fails on it. */
function quickCheck(db: DatabaseSync, path: string): void {
  let check: { quick_check: string }[]
  try {
    check = db.prepare('PRAGMA quick_check').all() as { quick_check: string }[]
  } catch (error) {
    throw new StoreDamagedError(`${path} is damaged (SQLite: ${error instanceof Error ? error.message : String(error)})`)
  }
  if (check.length !== 1 || check[0]!.quick_check !== 'ok') {
    throw new StoreDamagedError(`${path} is damaged (SQLite's quick_check: ${check.map((row) => row.quick_check).join('; ')})`)
  }
}

/** Checks a database file no process has opened yet (a replica's download of its sequencer's store) whole. */
export function checkStoreFile(path: string): void {
  const db = new sqlite.DatabaseSync(path, { readOnly: true })
  try {
    quickCheck(db, path)
  } finally {
    db.close()
  }
}

/**
 * Closes a data dir's database and takes the note of who held it away: a clean shutdown leaves no pid file behind.
 * (A crash leaves it, which is harmless: the lock is SQLite's, and the next start writes its own.)
 */
export function closeDatabase(db: DatabaseSync, options: { dataDir?: string }): void {
  db.close()
  if (options.dataDir !== undefined) rmSync(join(options.dataDir, PID_FILE), { force: true })
}

/** The data dir is held by another process. */
export class DataDirInUseError extends Error {}

/** The store cannot be trusted: starting on it could lose or invent what was acknowledged. */
export class StoreDamagedError extends Error {}

function configure(db: DatabaseSync): DatabaseSync {
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;')
  return db
}

/** Takes the database's exclusive lock now (the first write takes it, and it is kept until close). */
function exclusive(db: DatabaseSync, dataDir: string): DatabaseSync {
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE')
    configure(db)
    db.exec('BEGIN IMMEDIATE; COMMIT;')
    return db
  } catch (error) {
    db.close()
    if (!/locked|busy/i.test(error instanceof Error ? error.message : String(error))) throw error
    const pid = readPid(dataDir)
    throw new DataDirInUseError(`${dataDir} is in use by another flashchain${pid === undefined ? '' : ` (PID ${pid})`}`)
  }
}

function readPid(dataDir: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(join(dataDir, PID_FILE), 'utf8'), 10)
    return Number.isSafeInteger(pid) ? pid : undefined
  } catch {
    return undefined
  }
}

/** SQLite's WAL format: a 32-byte header whose bytes 8–11 give the page size, then frames of a 24-byte header and a page. */
const WAL_HEADER_BYTES = 32
const WAL_FRAME_HEADER_BYTES = 24
const WAL_MAGIC = [0x377f0682, 0x377f0683]

/**
 * A log cut short in the middle of a frame is one whose tail was lost (a copy or a disk that stopped part way):
 * SQLite would start without a word, from the frames before the cut, and the transactions in the lost ones would be
 * gone though their hashes were returned. Such a log is refused.
 */
function checkWriteAheadLog(path: string): void {
  if (!existsSync(path)) return
  const size = statSync(path).size
  if (size === 0) return
  const header = Buffer.alloc(WAL_HEADER_BYTES)
  const fd = openSync(path, 'r')
  try {
    readSync(fd, header, 0, WAL_HEADER_BYTES, 0)
  } finally {
    closeSync(fd)
  }
  const pageSize = header.readUInt32BE(8)
  const damaged =
    size < WAL_HEADER_BYTES ||
    !WAL_MAGIC.includes(header.readUInt32BE(0)) ||
    pageSize < 512 ||
    (size - WAL_HEADER_BYTES) % (WAL_FRAME_HEADER_BYTES + pageSize) !== 0
  if (damaged) {
    throw new StoreDamagedError(
      `${path} ends part way through a frame (${size} bytes): it was cut short, and what it held may be lost. ` +
        'Keep a copy, then move it aside to start from what the database itself holds',
    )
  }
}

/** Runs `work` in one SQLite transaction. */
export function inTransaction(db: DatabaseSync, work: () => void): void {
  db.exec('BEGIN')
  try {
    work()
    db.exec('COMMIT')
  } catch (error) {
    db.exec('ROLLBACK')
    throw error
  }
}
