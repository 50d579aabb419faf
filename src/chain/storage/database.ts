import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'

/** The one database of a data dir, shared by the chain and the wallet; in memory without a data dir. */
export function openDatabase(options: { dataDir?: string; fresh?: boolean }): DatabaseSync {
  let path = ':memory:'
  if (options.dataDir !== undefined) {
    if (options.fresh === true) rmSync(options.dataDir, { recursive: true, force: true })
    mkdirSync(options.dataDir, { recursive: true })
    path = join(options.dataDir, 'chain.sqlite')
  }
  const db = new DatabaseSync(path)
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;')
  return db
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
