// Stores written before blocks were split into rows (blockRows.ts) kept each block whole: its RLP, its receipts as
// one JSON array and its senders packed. They are rewritten once, at the first start of a flashchain that splits.
import { bytesToHex } from '@ethereumjs/util'

import { decodeStoredBlock } from './blockEncoding.ts'
import { decodeReceipts } from './blockRows.ts'
import { BLOCK_TABLES, openBlockTables } from './blockTables.ts'
import { inTransaction } from './database.ts'

import type { DatabaseSync } from 'node:sqlite'
import type { Hex } from '../../hex.ts'

type WholeBlockRow = { number: number; hash: Uint8Array; rlp: Uint8Array; receipts: string; senders: Uint8Array }

/** Whether the store keeps its blocks whole (a blocks table with a receipts column). */
export function keepsWholeBlocks(db: DatabaseSync): boolean {
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').all('blocks') as { name: string }[]
  return columns.some((column) => column.name === 'receipts')
}

/** Rewrites every whole block as rows, in one transaction: a crash leaves the store as it was. */
export function splitWholeBlocks(db: DatabaseSync): number {
  let count = 0
  inTransaction(db, () => {
    db.exec('ALTER TABLE blocks RENAME TO blocks_kept_whole')
    db.exec(BLOCK_TABLES)
    const tables = openBlockTables(db)
    const rows = db.prepare('SELECT number, hash, rlp, receipts, senders FROM blocks_kept_whole ORDER BY number').iterate() as Iterable<WholeBlockRow>
    for (const row of rows) {
      const senders = Array.from({ length: row.senders.length / 20 }, (_, i) => bytesToHex(row.senders.subarray(i * 20, i * 20 + 20)) as Hex)
      const block = {
        number: BigInt(row.number),
        hash: bytesToHex(row.hash) as Hex,
        rlp: decodeStoredBlock(row.rlp),
        receipts: decodeReceipts(row.receipts),
        senders,
      }
      tables.write(block, [])
      count++
    }
    db.exec('DROP TABLE blocks_kept_whole')
  })
  return count
}
