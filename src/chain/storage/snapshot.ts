import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { CHAIN_TABLES } from './chainStore.ts'

import type { DatabaseSync } from 'node:sqlite'

const sqlite = process.getBuiltinModule('node:sqlite')

/**
 * A copy of the chain as it is stored now, for a replica to start from (GET /snapshot; docs/scaling-out.md): a
 * database file with the chain's tables alone, its pool emptied, and nothing of the wallet's (grants, batches,
 * watched assets), which is the node's owner's, with nothing of theirs left in a free page either. `meta` gives rows for its meta table, read as the copy completes. SQLite's online backup copies pages a step at a time, and a write the
 * chain makes meanwhile through the same connection is copied too, so the copy is one consistent moment.
 */
export async function snapshotChain(db: DatabaseSync, meta: () => Record<string, string> = () => ({})): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'flashchain-snapshot-'))
  try {
    const file = join(dir, 'chain.sqlite')
    await sqlite.backup(db, file)
    // Read at the moment the copy is: what the chain wrote until now is in it, and nothing after.
    const rows = meta()
    const copy = new sqlite.DatabaseSync(file)
    try {
      // One file, with no write-ahead log beside it; what is dropped or deleted is overwritten with zeros, so that no
      // row of the wallet's or the pool's is left in a free page (a VACUUM would rewrite the whole file, on the
      // node's thread).
      copy.exec('PRAGMA journal_mode = DELETE; PRAGMA secure_delete = ON')
      const tables = copy.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
      for (const { name } of tables) {
        if (!(CHAIN_TABLES as readonly string[]).includes(name)) copy.exec(`DROP TABLE "${name.replaceAll('"', '""')}"`)
      }
      copy.exec('DELETE FROM pool')
      const setMeta = copy.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
      for (const [key, value] of Object.entries(rows)) setMeta.run(key, value)
    } finally {
      copy.close()
    }
    return readFileSync(file)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A meta row of a snapshot file (snapshotChain's `meta`), before a node opens it. */
export function snapshotMeta(file: string, key: string): string | undefined {
  const db = new sqlite.DatabaseSync(file, { readOnly: true })
  try {
    return (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value
  } finally {
    db.close()
  }
}
