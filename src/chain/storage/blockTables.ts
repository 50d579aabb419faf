// The store's sealed blocks (blockRows.ts has the layout): a row per block without its transactions, a row per
// transaction, and an index of the logs' addresses and topics by transaction. Every read costs what it answers: a
// receipt is one row found by its hash, a log query reads the transactions whose logs hold one of its keys.
import { bytesToHex, hexToBytes } from '@ethereumjs/util'

import { keccak256 } from '../crypto/keccak.ts'
import { decodeStoredBlock, encodeStoredBlock } from './blockEncoding.ts'
import {
  TRANSACTIONS_PER_BLOCK,
  blockOfTransaction,
  decodeReceipt,
  encodeReceipt,
  headerFields,
  joinBlock,
  logKeysOf,
  splitBlock,
  transactionId,
} from './blockRows.ts'

import type { DatabaseSync, StatementSync } from 'node:sqlite'
import type { Hex } from '../../hex.ts'
import type { Receipt } from '../types.ts'

export type StoredBlock = { number: bigint; rlp: Uint8Array; receipts: Receipt[]; senders: Hex[] }

/** A sealed transaction as the store keeps it, with where it is and the index of its first log in its block. */
export type StoredTransaction = { number: bigint; index: number; hash: Hex; raw: Uint8Array; sender: Hex; receipt: Receipt; firstLog: number }

/** A log query's keys (blockRows.ts logKey): each inner list is one criterion's alternatives, any of which matches it. */
export type LogCriteria = Uint8Array[][]

export const BLOCK_TABLES = `
  CREATE TABLE IF NOT EXISTS blocks (number INTEGER PRIMARY KEY, hash BLOB NOT NULL, rlp BLOB NOT NULL, size INTEGER NOT NULL, hashes BLOB NOT NULL);
  CREATE INDEX IF NOT EXISTS blocks_by_hash ON blocks (hash);
  CREATE TABLE IF NOT EXISTS transactions (
    id INTEGER PRIMARY KEY, hash BLOB NOT NULL, raw BLOB NOT NULL, sender BLOB NOT NULL, receipt TEXT NOT NULL,
    first_log INTEGER NOT NULL, logs INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS transactions_by_hash ON transactions (hash);
  CREATE INDEX IF NOT EXISTS transactions_logged ON transactions (id) WHERE logs > 0;
  CREATE TABLE IF NOT EXISTS log_keys (key BLOB NOT NULL, tx INTEGER NOT NULL, PRIMARY KEY (key, tx)) WITHOUT ROWID;
`

/**
 * Block hashes read as one row of hex each (ChainStore.blockHashes): 64 MB of text, far below V8's longest string
 * (2^29 - 24 characters, 8.4 million hashes) and SQLite's (1e9 bytes).
 */
const HASHES_PER_ROW = 1_000_000

/**
 * Candidates a criterion is counted to before it counts as unselective. The query reads the transactions of the
 * criterion with the fewest (a recipient's topic, not the Transfer event's), so it costs what the answer holds.
 */
const COUNT_CAP = 4096

type TransactionRow = { id: number; hash: Uint8Array; raw: Uint8Array; sender: Uint8Array; receipt: string; first_log: number }
export type LogRow = { number: bigint; index: number; hash: Hex; receipt: Receipt; firstLog: number }

export type BlockTables = ReturnType<typeof openBlockTables>

export function openBlockTables(db: DatabaseSync) {
  const statements = {
    insertBlock: db.prepare("INSERT INTO blocks (number, hash, rlp, size, hashes) VALUES (?, ?, ?, ?, COALESCE(?, x''))"),
    insertTransaction: db.prepare('INSERT INTO transactions (id, hash, raw, sender, receipt, first_log, logs) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    insertKey: db.prepare('INSERT OR IGNORE INTO log_keys (key, tx) VALUES (?, ?)'),
    head: db.prepare('SELECT MAX(number) AS number FROM blocks'),
    block: db.prepare('SELECT rlp FROM blocks WHERE number = ?'),
    // A row of hex per HASHES_PER_ROW blocks: a row per block cost a restart of 100,000 blocks 110-390 ms, this 45.
    hashes: db.prepare(
      "SELECT group_concat(hex(hash), '') AS hashes FROM (SELECT hash FROM blocks WHERE number >= ? AND number < ? ORDER BY number)",
    ),
    numberOf: db.prepare('SELECT number FROM blocks WHERE hash = ?'),
    summary: db.prepare('SELECT rlp, size, hashes FROM blocks WHERE number = ?'),
    transactionsOf: db.prepare('SELECT id, hash, raw, sender, receipt, first_log FROM transactions WHERE id BETWEEN ? AND ? ORDER BY id'),
    locate: db.prepare('SELECT id FROM transactions WHERE hash = ?'),
    transaction: db.prepare('SELECT id, hash, raw, sender, receipt, first_log FROM transactions WHERE hash = ?'),
    logRow: db.prepare('SELECT id, hash, receipt, first_log FROM transactions WHERE id = ?'),
    // The transactions that logged, through their own index: a range of transfers that logged nothing is not read.
    loggedIn: db.prepare(
      'SELECT id, hash, receipt, first_log FROM transactions INDEXED BY transactions_logged WHERE id BETWEEN ? AND ? AND logs > 0 ORDER BY id',
    ),
    countKey: db.prepare(`SELECT COUNT(*) AS count FROM (SELECT 1 FROM log_keys WHERE key = ? AND tx BETWEEN ? AND ? LIMIT ${COUNT_CAP})`),
    loggedAfter: db.prepare('SELECT id, receipt FROM transactions INDEXED BY transactions_logged WHERE id >= ? AND logs > 0'),
    dropKey: db.prepare('DELETE FROM log_keys WHERE key = ? AND tx = ?'),
    dropTransactions: db.prepare('DELETE FROM transactions WHERE id >= ?'),
    dropAllKeys: db.prepare('DELETE FROM log_keys'),
    dropBlocks: db.prepare('DELETE FROM blocks WHERE number > ?'),
  }

  /** One statement per alternative of a criterion, so that their rows can be read side by side. */
  const keyStatements: StatementSync[] = []
  const withKey = (i: number) => (keyStatements[i] ??= db.prepare('SELECT tx FROM log_keys WHERE key = ? AND tx BETWEEN ? AND ? ORDER BY tx'))

  /** The ids of the transactions that logged any of `keys`, ascending and once each: each key's rows merged as read. */
  function* mergedIds(keys: Uint8Array[], low: number, high: number): Generator<number> {
    const cursors = keys.map((key, i) => (withKey(i).iterate(key, low, high) as IterableIterator<{ tx: number }>)[Symbol.iterator]())
    try {
      const next = cursors.map((cursor) => cursor.next())
      let last = -1
      for (;;) {
        let smallest = -1
        for (const [i, head] of next.entries()) {
          if (!head.done && (smallest < 0 || head.value.tx < next[smallest]!.value!.tx)) smallest = i
        }
        if (smallest < 0) return
        const id = next[smallest]!.value!.tx
        next[smallest] = cursors[smallest]!.next()
        if (id !== last) yield (last = id)
      }
    } finally {
      for (const cursor of cursors) cursor.return?.()
    }
  }

  const toRow = (row: TransactionRow): LogRow => ({
    number: BigInt(blockOfTransaction(row.id)),
    index: row.id % TRANSACTIONS_PER_BLOCK,
    hash: bytesToHex(row.hash) as Hex,
    receipt: decodeReceipt(row.receipt),
    firstLog: row.first_log,
  })
  /** The ids of blocks `from` to `to`'s transactions. */
  const idRange = (from: bigint, to: bigint): [number, number] => [transactionId(from, 0), transactionId(to + 1n, 0) - 1]

  return {
    /** Writes a sealed block's rows; `hashes` are its transactions' (computed here when not given). Inside a transaction. */
    write(block: StoredBlock & { hash: Hex }, hashes: readonly Hex[]) {
      const { body, transactions } = splitBlock(block.rlp)
      // The transactions' hashes again, packed, so that a block with hashes only is one row.
      const packed = new Uint8Array(transactions.length * 32)
      for (const [index, raw] of transactions.entries())
        packed.set(hashes.length === transactions.length ? hexToBytes(hashes[index]!) : keccak256(raw), index * 32)
      statements.insertBlock.run(Number(block.number), hexToBytes(block.hash), encodeStoredBlock(body), block.rlp.length, packed)
      let firstLog = 0
      for (const [index, raw] of transactions.entries()) {
        const receipt = block.receipts[index]!
        const id = transactionId(block.number, index)
        const hash = packed.subarray(index * 32, index * 32 + 32)
        const logs = receipt.logs.length
        statements.insertTransaction.run(id, hash, raw, hexToBytes(block.senders[index]!), encodeReceipt(receipt), firstLog, logs)
        for (const key of logKeysOf(receipt)) statements.insertKey.run(key, id)
        firstLog += logs
      }
    },

    /** The newest block's number, or undefined when there is none. */
    head(): bigint | undefined {
      const { number } = statements.head.get() as { number: number | null }
      return number === null ? undefined : BigInt(number)
    },

    /** The hashes of the blocks from `from` on, 32 bytes each, in order. */
    hashes(from: bigint): Uint8Array {
      const parts: Buffer[] = []
      for (let start = Number(from); ; start += HASHES_PER_ROW) {
        const { hashes } = statements.hashes.get(start, start + HASHES_PER_ROW) as { hashes: string | null }
        if (hashes === null) break
        parts.push(Buffer.from(hashes, 'hex'))
      }
      return Uint8Array.from(Buffer.concat(parts))
    },

    numberOf(hash: Hex): bigint | undefined {
      const row = statements.numberOf.get(hexToBytes(hash)) as { number: number } | undefined
      return row === undefined ? undefined : BigInt(row.number)
    },

    block(number: bigint): StoredBlock | undefined {
      const row = statements.block.get(Number(number)) as { rlp: Uint8Array } | undefined
      if (row === undefined) return undefined
      const rows = statements.transactionsOf.all(...idRange(number, number)) as TransactionRow[]
      return {
        number,
        rlp: joinBlock(
          decodeStoredBlock(row.rlp),
          rows.map((tx) => tx.raw),
        ),
        receipts: rows.map((tx) => decodeReceipt(tx.receipt)),
        senders: rows.map((tx) => bytesToHex(tx.sender) as Hex),
      }
    },

    /**
     * A block without its transactions (its RLP with an empty list), their hashes, and the size of the whole block's
     * RLP: what a block with hashes only answers, read without its transactions.
     */
    summary(number: bigint): { body: Uint8Array; hashes: Hex[]; size: number } | undefined {
      const row = statements.summary.get(Number(number)) as { rlp: Uint8Array; size: number; hashes: Uint8Array } | undefined
      if (row === undefined) return undefined
      const hashes = Array.from({ length: row.hashes.length / 32 }, (_, i) => bytesToHex(row.hashes.subarray(i * 32, i * 32 + 32)) as Hex)
      return { body: decodeStoredBlock(row.rlp), hashes, size: row.size }
    },

    /** A block's header fields, undecoded, without reading its transactions. */
    header(number: bigint): Uint8Array[] | undefined {
      const row = statements.block.get(Number(number)) as { rlp: Uint8Array } | undefined
      return row === undefined ? undefined : headerFields(decodeStoredBlock(row.rlp))
    },

    locate(hash: Hex): { number: bigint; index: number } | undefined {
      const row = statements.locate.get(hexToBytes(hash)) as { id: number } | undefined
      return row === undefined ? undefined : { number: BigInt(blockOfTransaction(row.id)), index: row.id % TRANSACTIONS_PER_BLOCK }
    },

    transaction(hash: Hex): StoredTransaction | undefined {
      const row = statements.transaction.get(hexToBytes(hash)) as TransactionRow | undefined
      if (row === undefined) return undefined
      return { ...toRow(row), raw: row.raw, sender: bytesToHex(row.sender) as Hex }
    },

    /**
     * The transactions of blocks `from` to `to` that may hold a log matching every criterion, in order: those of the
     * criterion with the fewest, or every transaction that logged when there are no criteria. The caller matches the
     * logs themselves.
     */
    *logRows(from: bigint, to: bigint, criteria: LogCriteria): Generator<LogRow> {
      const [low, high] = idRange(from, to)
      if (criteria.length === 0) {
        for (const row of statements.loggedIn.iterate(low, high) as Iterable<TransactionRow>) yield toRow(row)
        return
      }
      let narrowest = criteria[0]!
      let fewest = Number.POSITIVE_INFINITY
      for (const alternatives of criteria) {
        let count = 0
        for (const key of alternatives) count += (statements.countKey.get(key, low, high) as { count: number }).count
        if (count < fewest) [narrowest, fewest] = [alternatives, count]
      }
      // In id order as they are read, so that a caller that stops (a query past its cap) has read no further.
      for (const id of mergedIds(narrowest, low, high)) yield toRow(statements.logRow.get(id) as TransactionRow)
    },

    /** Forgets the blocks after `number` (-1: every block), their transactions and their log keys. Inside a transaction. */
    dropAfter(number: bigint) {
      const first = number < 0n ? 0 : transactionId(number + 1n, 0)
      if (first === 0) statements.dropAllKeys.run()
      else
        for (const row of statements.loggedAfter.iterate(first) as Iterable<{ id: number; receipt: string }>) {
          for (const key of logKeysOf(decodeReceipt(row.receipt))) statements.dropKey.run(key, row.id)
        }
      statements.dropTransactions.run(first)
      statements.dropBlocks.run(Number(number))
    },
  }
}
