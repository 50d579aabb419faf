import { inTransaction } from '../chain/storage/database.ts'

import type { DatabaseSync, SQLInputValue } from 'node:sqlite'
import type { Hex } from '../hex.ts'

export type BatchRecord = {
  sender: Hex
  id: Hex
  atomic: boolean
  chainId: Hex
  createdAt: number
  transactions: Hex[]
  /** The calls as requested, for the console page. */
  calls: StoredCall[]
  /** Why the batch could not be (fully) submitted, if it could not. */
  failure: string | null
}

export type StoredCall = { to: Hex; value: Hex; data: Hex }

export type WatchedAsset = { address: Hex; symbol: string; decimals: number; image?: string; chainId: Hex }

/** Wallet state in the chain's own database: batches and their transactions, token lists, permissions. */
export type WalletStore = {
  findBatches(id: Hex): BatchRecord[]
  /** The latest batches, newest first. */
  recentBatches(limit: number): BatchRecord[]
  hasBatch(sender: Hex, id: Hex): boolean
  /** Records a batch and the hashes of its transactions, before any of them is sent. */
  addBatch(batch: BatchRecord): void
  setBatchFailure(sender: Hex, id: Hex, failure: string): void
  removeBatch(sender: Hex, id: Hex): void
  upsertAsset(account: Hex, asset: WatchedAsset): void
  assets(account: Hex, chainId: Hex): WatchedAsset[]
  grant(origin: string, accounts: Hex[], at: number): void
  revoke(origin: string): void
  permissions(origin: string): { accounts: Hex[]; grantedAt: number } | undefined
  /** Every origin's grant, oldest first. */
  grants(): { origin: string; accounts: Hex[]; grantedAt: number }[]
  /** Every row of the wallet's tables, for a snapshot (evm_snapshot). */
  capture(): WalletRows
  /** Puts captured rows back in place of what the tables hold; the caller runs it inside its transaction. */
  restore(rows: WalletRows): void
  /** Forgets what belongs to the chain's history (batches, watched tokens) and keeps the grants; inside a transaction. */
  clearHistory(): void
}

/** A snapshot of the wallet's tables: each table's rows, as SQLite returns them. */
export type WalletRows = Record<(typeof tables)[number], Record<string, SQLInputValue>[]>

const tables = ['wallet_batches', 'wallet_batch_transactions', 'wallet_batch_calls', 'wallet_assets', 'wallet_permissions'] as const

const schema = `
  CREATE TABLE IF NOT EXISTS wallet_batches (
    sender TEXT NOT NULL, id TEXT NOT NULL, atomic INTEGER NOT NULL, chain_id TEXT NOT NULL,
    created_at INTEGER NOT NULL, failure TEXT, PRIMARY KEY (sender, id)) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS wallet_batches_by_id ON wallet_batches (id);
  CREATE TABLE IF NOT EXISTS wallet_batch_transactions (
    sender TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL, hash TEXT NOT NULL,
    PRIMARY KEY (sender, id, position)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS wallet_batch_calls (
    sender TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL, target TEXT NOT NULL, value TEXT NOT NULL,
    data TEXT NOT NULL, PRIMARY KEY (sender, id, position)) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS wallet_batches_by_time ON wallet_batches (created_at);
  CREATE TABLE IF NOT EXISTS wallet_assets (
    account TEXT NOT NULL, chain_id TEXT NOT NULL, address TEXT NOT NULL, symbol TEXT NOT NULL,
    decimals INTEGER NOT NULL, image TEXT, added_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    PRIMARY KEY (account, chain_id, address)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS wallet_permissions (
    origin TEXT NOT NULL, account TEXT NOT NULL, granted_at INTEGER NOT NULL, PRIMARY KEY (origin, account)) WITHOUT ROWID;
`

type BatchRow = { sender: Hex; id: Hex; atomic: number; chain_id: Hex; created_at: number; failure: string | null }

export function openWalletStore(db: DatabaseSync): WalletStore {
  db.exec(schema)
  const statements = {
    batchesById: db.prepare('SELECT * FROM wallet_batches WHERE id = ? ORDER BY created_at DESC'),
    recentBatches: db.prepare('SELECT * FROM wallet_batches ORDER BY created_at DESC LIMIT ?'),
    batch: db.prepare('SELECT 1 FROM wallet_batches WHERE sender = ? AND id = ?'),
    calls: db.prepare('SELECT target AS "to", value, data FROM wallet_batch_calls WHERE sender = ? AND id = ? ORDER BY position'),
    insertCall: db.prepare('INSERT INTO wallet_batch_calls (sender, id, position, target, value, data) VALUES (?, ?, ?, ?, ?, ?)'),
    deleteCalls: db.prepare('DELETE FROM wallet_batch_calls WHERE sender = ? AND id = ?'),
    transactions: db.prepare('SELECT hash FROM wallet_batch_transactions WHERE sender = ? AND id = ? ORDER BY position'),
    insertBatch: db.prepare('INSERT INTO wallet_batches (sender, id, atomic, chain_id, created_at, failure) VALUES (?, ?, ?, ?, ?, ?)'),
    insertTransaction: db.prepare('INSERT INTO wallet_batch_transactions (sender, id, position, hash) VALUES (?, ?, ?, ?)'),
    setFailure: db.prepare('UPDATE wallet_batches SET failure = ? WHERE sender = ? AND id = ?'),
    deleteBatch: db.prepare('DELETE FROM wallet_batches WHERE sender = ? AND id = ?'),
    deleteTransactions: db.prepare('DELETE FROM wallet_batch_transactions WHERE sender = ? AND id = ?'),
    upsertAsset:
      db.prepare(`INSERT INTO wallet_assets (account, chain_id, address, symbol, decimals, image, added_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (account, chain_id, address) DO UPDATE SET symbol = excluded.symbol, decimals = excluded.decimals, image = excluded.image, updated_at = excluded.updated_at`),
    assets: db.prepare(
      'SELECT address, symbol, decimals, image, chain_id FROM wallet_assets WHERE account = ? AND chain_id = ? ORDER BY added_at, address',
    ),
    grant: db.prepare('INSERT OR REPLACE INTO wallet_permissions (origin, account, granted_at) VALUES (?, ?, ?)'),
    revoke: db.prepare('DELETE FROM wallet_permissions WHERE origin = ?'),
    permissions: db.prepare('SELECT account, granted_at FROM wallet_permissions WHERE origin = ? ORDER BY account'),
    grants: db.prepare('SELECT origin, account, granted_at FROM wallet_permissions ORDER BY granted_at, origin, account'),
  }
  const whole = Object.fromEntries(
    tables.map((table) => [table, { all: db.prepare(`SELECT * FROM ${table}`), clear: db.prepare(`DELETE FROM ${table}`) }]),
  )

  function insertRows(table: string, rows: Record<string, SQLInputValue>[]) {
    if (rows.length === 0) return
    const columns = Object.keys(rows[0]!)
    const insert = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
    for (const row of rows) insert.run(...columns.map((column) => row[column]!))
  }

  function toRecord(row: BatchRow): BatchRecord {
    return {
      sender: row.sender,
      id: row.id,
      atomic: row.atomic === 1,
      chainId: row.chain_id,
      createdAt: row.created_at,
      failure: row.failure,
      transactions: (statements.transactions.all(row.sender, row.id) as { hash: Hex }[]).map((tx) => tx.hash),
      calls: statements.calls.all(row.sender, row.id) as StoredCall[],
    }
  }

  return {
    findBatches: (id) => (statements.batchesById.all(id) as BatchRow[]).map(toRecord),
    recentBatches: (limit) => (statements.recentBatches.all(limit) as BatchRow[]).map(toRecord),
    hasBatch: (sender, id) => statements.batch.get(sender, id) !== undefined,
    addBatch(batch) {
      inTransaction(db, () => {
        statements.insertBatch.run(batch.sender, batch.id, batch.atomic ? 1 : 0, batch.chainId, batch.createdAt, batch.failure)
        for (const [position, hash] of batch.transactions.entries()) statements.insertTransaction.run(batch.sender, batch.id, position, hash)
        for (const [position, call] of batch.calls.entries())
          statements.insertCall.run(batch.sender, batch.id, position, call.to, call.value, call.data)
      })
    },
    setBatchFailure: (sender, id, failure) => void statements.setFailure.run(failure, sender, id),
    removeBatch(sender, id) {
      inTransaction(db, () => {
        statements.deleteTransactions.run(sender, id)
        statements.deleteCalls.run(sender, id)
        statements.deleteBatch.run(sender, id)
      })
    },
    upsertAsset: (account, asset) =>
      void statements.upsertAsset.run(
        account,
        asset.chainId,
        asset.address,
        asset.symbol,
        asset.decimals,
        asset.image ?? null,
        Date.now(),
        Date.now(),
      ),
    assets: (account, chainId) =>
      (statements.assets.all(account, chainId) as { address: Hex; symbol: string; decimals: number; image: string | null; chain_id: Hex }[]).map(
        (row) => ({
          address: row.address,
          symbol: row.symbol,
          decimals: row.decimals,
          ...(row.image === null ? {} : { image: row.image }),
          chainId: row.chain_id,
        }),
      ),
    grant(origin, accounts, at) {
      inTransaction(db, () => {
        for (const account of accounts) statements.grant.run(origin, account, at)
      })
    },
    revoke: (origin) => void statements.revoke.run(origin),
    capture: () => Object.fromEntries(tables.map((table) => [table, whole[table]!.all.all()])) as WalletRows,
    restore(rows) {
      for (const table of tables) {
        whole[table]!.clear.run()
        insertRows(table, rows[table])
      }
    },
    clearHistory() {
      for (const table of ['wallet_batches', 'wallet_batch_transactions', 'wallet_batch_calls', 'wallet_assets'] as const) whole[table]!.clear.run()
    },
    grants() {
      const byOrigin = new Map<string, { origin: string; accounts: Hex[]; grantedAt: number }>()
      for (const row of statements.grants.all() as { origin: string; account: Hex; granted_at: number }[]) {
        const grant = byOrigin.get(row.origin) ?? { origin: row.origin, accounts: [], grantedAt: row.granted_at }
        grant.accounts.push(row.account)
        byOrigin.set(row.origin, grant)
      }
      return [...byOrigin.values()]
    },
    permissions(origin) {
      const rows = statements.permissions.all(origin) as { account: Hex; granted_at: number }[]
      return rows.length === 0 ? undefined : { accounts: rows.map((row) => row.account), grantedAt: rows[0]!.granted_at }
    },
  }
}
