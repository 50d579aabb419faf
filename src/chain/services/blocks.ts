import { encodeReceipt } from '../blocks/encoding.ts'
import { feeHistory } from '../blocks/feeHistory.ts'
import { findLogs } from '../blocks/logs.ts'
import { pendingIndexOf } from '../blocks/types.ts'
import { pendingBlockOf, pendingBlockPosition, sealedBlockOf, transactionOf } from '../blocks/views.ts'

import type { SealedBlocks } from '../blocks/sealedBlocks.ts'
import type { BlockResolver } from '../blocks/tags.ts'
import type { PendingSnapshot } from '../blocks/types.ts'
import type { Pool } from '../production/txpool.ts'
import type { Hex } from '../../hex.ts'
import type { Block, BlockSpecifier, FeeHistory, FoundLog, LogFilter, PendingBlock, TransactionLocation } from '../types.ts'

export type BlocksParts = {
  blocks: SealedBlocks
  resolver: BlockResolver
  pending: () => PendingSnapshot
  pool: Pool
}

/** The chain's blocks as plain data: sealed ones, the pending one, their transactions, receipts and logs, and fees. */
export type BlocksService = {
  /** The newest sealed block. */
  head(): Block
  /** The block a specifier names (`pending`: the block being built); undefined when there is none. */
  block(block: BlockSpecifier): Block | PendingBlock | undefined
  /** A sealed block's RLP encoding, as a block body carries it; undefined when there is none. */
  rawBlock(block: BlockSpecifier): Uint8Array | undefined
  /** A sealed block's header, RLP-encoded; undefined when there is none (the pending block has no header before its seal). */
  rawHeader(block: BlockSpecifier): Uint8Array | undefined
  /** The consensus encoding of each receipt of a block, the pending block's too; undefined when there is no such block. */
  rawReceipts(block: BlockSpecifier): Uint8Array[] | undefined
  /** A sealed, pre-confirmed or pooled transaction's canonical encoding (EIP-2718); undefined for an unknown hash. */
  rawTransaction(hash: Hex): Uint8Array | undefined
  /** The number `block` names, without reading a sealed block back from the store; BlockNotFoundError when there is none. */
  numberOf(block: BlockSpecifier): bigint
  /** Where a transaction is: sealed, pre-confirmed in the pending block, or waiting in the pool. */
  transaction(hash: Hex): TransactionLocation | undefined
  logs(filter: LogFilter): FoundLog[]
  feeHistory(count: bigint, newest: BlockSpecifier, percentiles?: number[]): FeeHistory
  /** The blob base fee (EIP-4844) of the newest sealed block, as geth's eth_blobBaseFee; undefined before Cancun. */
  blobBaseFee(): bigint | undefined
}

export function createBlocksService(parts: BlocksParts): BlocksService {
  const { blocks, resolver, pending, pool } = parts
  const resolve = (specifier: BlockSpecifier) => resolver.resolve(specifier)
  const resolveIfAny = (specifier: BlockSpecifier) => resolver.resolveIfAny(specifier)

  return {
    head: () => sealedBlockOf(blocks.head()),
    block(specifier) {
      // A sealed block named by number or hash is read without its transactions unless they are asked for.
      if (typeof specifier === 'bigint') return blocks.view(specifier)
      if (typeof specifier === 'object') {
        const number = blocks.numberOf(specifier.blockHash)
        if (number !== undefined) return blocks.view(number)
      }
      const resolved = resolveIfAny(specifier)
      if (resolved === undefined) return undefined
      return resolved.kind === 'pending' ? pendingBlockOf(resolved.block) : sealedBlockOf(resolved.block)
    },
    rawBlock(specifier) {
      const resolved = resolveIfAny(specifier)
      return resolved?.kind === 'sealed' ? resolved.block.block.serialize() : undefined
    },
    rawHeader(specifier) {
      const resolved = resolveIfAny(specifier)
      return resolved?.kind === 'sealed' ? resolved.block.block.header.serialize() : undefined
    },
    rawReceipts(specifier) {
      const resolved = resolveIfAny(specifier)
      if (resolved === undefined) return undefined
      const { receipts } = resolved.block
      const transactions = resolved.kind === 'sealed' ? resolved.block.block.transactions : resolved.block.transactions
      return receipts.map((receipt, i) => encodeReceipt(receipt, transactions[i]!.type))
    },
    rawTransaction(hash) {
      const key = hash.toLowerCase() as Hex
      const sealed = blocks.transaction(key)
      if (sealed !== undefined) return sealed.tx.serialize()
      const snapshot = pending()
      const index = pendingIndexOf(snapshot, key)
      if (index !== undefined) return snapshot.transactions[index]!.serialize()
      return pool.get(key)?.tx.serialize()
    },
    numberOf: (specifier) => resolver.numberOf(specifier),
    transaction: (hash) => locate(hash, pending()),
    logs: (filter) => findLogs(filter, { blocks, pending }),
    feeHistory(count, newest, percentiles) {
      const resolved = resolve(newest)
      return feeHistory(blocks, count, resolved.kind === 'pending' ? blocks.head().number : resolved.block.number, percentiles)
    },
    blobBaseFee() {
      const { header } = blocks.head().block
      return header.excessBlobGas === undefined ? undefined : header.getBlobGasPrice()
    },
  }

  function locate(hash: Hex, snapshot: PendingSnapshot): TransactionLocation | undefined {
    const key = hash.toLowerCase() as Hex
    const sealed = blocks.transaction(key)
    if (sealed !== undefined) {
      const { tx, sender, block, index, receipt, firstLog } = sealed
      return { kind: 'sealed', transaction: transactionOf(tx, sender), block, index, receipt, logIndex: firstLog }
    }
    const index = pendingIndexOf(snapshot, key)
    if (index !== undefined) {
      return {
        kind: 'preconfirmed',
        transaction: transactionOf(snapshot.transactions[index]!, snapshot.senders[index]!),
        block: pendingBlockPosition(snapshot),
        index,
        receipt: snapshot.receipts[index]!,
        logIndex: firstLogIndex(snapshot.receipts, index),
      }
    }
    const queued = pool.get(key)
    return queued === undefined ? undefined : { kind: 'pool', transaction: transactionOf(queued.tx, queued.sender) }
  }
}

/** The index in its block of a transaction's first log: the logs of the transactions before it. */
function firstLogIndex(receipts: readonly { logs: readonly unknown[] }[], position: number): number {
  let count = 0
  for (let i = 0; i < position; i++) count += receipts[i]!.logs.length
  return count
}
