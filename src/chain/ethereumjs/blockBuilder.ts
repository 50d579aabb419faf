import { Block } from '@ethereumjs/block'

import { DEPOSIT_TX_TYPE } from '../opstack/deposit.ts'

import type { HeaderData } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { BlockBuilder, RunTxResult } from '@ethereumjs/vm'

/**
 * BlockBuilder's private fields in `@ethereumjs/vm` `dist/esm/buildBlock.js`: `_minerValue` (line 59),
 * `transactions` and `transactionResults` (60-61), `blockOpts` (65) and `headerData` (66). `addTransaction` records a
 * transaction in them (248-261), and `build` reads them back (290-356).
 */
type BuilderFields = {
  transactions: TypedTransaction[]
  transactionResults: RunTxResult[]
  gasUsed: bigint
  blobGasUsed: bigint
  _minerValue: bigint
  blockOpts: { common?: Common }
  headerData: HeaderData
}

/** What a builder holds of the transactions added so far, and the way to add one run elsewhere. */
export type BuilderRecord = {
  /** The transactions in the block, as it will carry them (a blob transaction without its blobs, EIP-4844). */
  readonly transactions: readonly TypedTransaction[]
  /** Each transaction's run, in the same order. */
  readonly results: readonly RunTxResult[]
  /** Records `tx`, already run to `result`, as `addTransaction` records one it runs itself. */
  add(tx: TypedTransaction, result: RunTxResult, blobGasUsed: bigint): void
}

/**
 * BlockBuilder.addTransaction rebuilds a block of every transaction added so far before running the next one,
 * which makes a block of n transactions cost O(n²) (25 s for 800 transfers, measured). The producer (and
 * eth_simulateV1) runs each transaction itself, once, and hands the builder the results it would have recorded, so
 * that build() still computes the transactions and receipts roots, the bloom and the EIP-7685 requests.
 *
 * If a release renames the private fields this throws, here, at the first block; if it records more per
 * transaction than these five fields (`addTransaction` also sums EIP-8037's two gas dimensions, an EIP no fork we
 * run activates), build() would read a stale value: producer.test.ts imports sealed blocks into another chain, which
 * re-executes them and must agree on every root (docs/patches.md#reaches-into-ethereumjs).
 */
export function builderRecord(builder: BlockBuilder): BuilderRecord {
  const fields = fieldsOf(builder)
  return {
    transactions: fields.transactions,
    results: fields.transactionResults,
    add(tx, result, blobGasUsed) {
      fields.transactions.push(tx)
      fields.transactionResults.push(result)
      fields.gasUsed += result.blockGasSpent
      fields.blobGasUsed += blobGasUsed
      fields._minerValue += result.minerValue
    },
  }
}

/** The header fields the builder was started with (its private `headerData`, with the parent's defaults filled in). */
export function builderHeaderData(builder: BlockBuilder): Readonly<HeaderData> {
  return fieldsOf(builder).headerData
}

/**
 * Sets the Common the builder assembles its block with (its private `blockOpts.common`, which `build` takes at line
 * 290 and passes to `createBlock` at 356), so that the transactions are read back under the rules they were built
 * with. Were `build` to take its Common from elsewhere, a simulated call given more gas than EIP-7825's cap would
 * fail its block's assembly.
 */
export function setBuilderCommon(builder: BlockBuilder, common: Common): void {
  fieldsOf(builder).blockOpts.common = common
}

/**
 * Gives the builder other ways to compute its transactions and receipts roots. These are public methods, but that
 * `build` computes the header's roots through them (buildBlock.js:299 and 303), rather than from the fields
 * directly, is upstream's choice: were it to stop, the roots would still be right, computed again from scratch.
 */
export function replaceRootTries(
  builder: BlockBuilder,
  roots: { transactionsTrie(): Promise<Uint8Array>; receiptTrie(): Promise<Uint8Array> },
): void {
  builder.transactionsTrie = roots.transactionsTrie
  builder.receiptTrie = roots.receiptTrie
}

function fieldsOf(builder: BlockBuilder): BuilderFields {
  const fields = builder as unknown as BuilderFields
  if (
    !Array.isArray(fields.transactions) ||
    !Array.isArray(fields.transactionResults) ||
    typeof fields._minerValue !== 'bigint' ||
    typeof fields.blockOpts !== 'object' ||
    typeof fields.headerData !== 'object'
  ) {
    throw new Error('@ethereumjs/vm BlockBuilder no longer has the fields flashchain relies on')
  }
  return fields
}

/**
 * Builds the block. ethereumjs's `build` creates each transaction again from its fields (`createBlock`), which
 * knows no OP Stack deposit (type 0x7E): when the block holds one, `build` is handed no transactions (its roots come
 * from the tries replaceRootTries gave it, its bloom and gas from the results) and the block is assembled with them
 * after, as `createBlock` would (buildBlock.js:356, block/constructors.js:44).
 */
export async function buildWithAnyTransactions(builder: BlockBuilder): Promise<Block> {
  const fields = fieldsOf(builder)
  const { transactions } = fields
  if (!transactions.some((tx) => (tx.type as number) === DEPOSIT_TX_TYPE)) return (await builder.build()).block
  fields.transactions = []
  try {
    const { block } = await builder.build()
    return new Block(block.header, transactions, block.uncleHeaders, block.withdrawals, { common: block.common })
  } finally {
    fields.transactions = transactions
  }
}
