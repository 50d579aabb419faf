import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { CHAIN_TABLES } from './chainStore.ts'

import type { DatabaseSync } from 'node:sqlite'

const sqlite = process.getBuiltinModule('node:sqlite')

/**
 * A copy of the chain as it is stored now, for a replica to start from (GET /snapshot; docs/scaling-out.md): a
 * database file with the chain's tables alone, its pool emptied, and nothing of the wallet's (grants, batches,
 * watched assets), which is the node's owner's. SQLite's online backup copies pages a step at a time, and a write
 * the chain makes meanwhile through the same connection is copied too, so the copy is one consistent moment.
 */
export async function snapshotChain(db: DatabaseSync): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'flashchain-snapshot-'))
  try {
    const file = join(dir, 'chain.sqlite')
    await sqlite.backup(db, file)
    const copy = new sqlite.DatabaseSync(file)
    try {
      // One file, with no write-ahead log beside it.
      copy.exec('PRAGMA journal_mode = DELETE')
      const tables = copy.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
      for (const { name } of tables) {
        if (!(CHAIN_TABLES as readonly string[]).includes(name)) copy.exec(`DROP TABLE "${name.replaceAll('"', '""')}"`)
      }
      copy.exec('DELETE FROM pool')
    } finally {
      copy.close()
    }
    return readFileSync(file)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
