import { bytesToHex } from '@ethereumjs/util'

import { LimitExceededError } from '../errors.ts'
import { addressKey, topicKey } from '../storage/blockRows.ts'

import type { Hex } from '../../hex.ts'
import type { LogCriteria } from '../storage/chainStore.ts'
import type { FoundLog, Log, LogFilter, Receipt } from '../types.ts'
import type { SealedBlocks } from './sealedBlocks.ts'
import type { PendingSnapshot } from './types.ts'

/**
 * eth_getLogs over sealed blocks, and the pending block when asked. The sealed blocks' logs are found through the
 * store's log index (storage/blockTables.ts): only the transactions that logged one of the filter's narrowest
 * criterion's keys are read, so a query costs what its answer holds, not what its range holds.
 */
export function findLogs(filter: LogFilter, chain: { blocks: SealedBlocks; pending: () => PendingSnapshot }): FoundLog[] {
  const { blocks } = chain
  const found: FoundLog[] = []
  const head = blocks.head().number
  const last = filter.toBlock < head ? filter.toBlock : head
  let block: { number: bigint; hash: Hex; timestamp: bigint } | undefined
  const tooManyBefore = () => {
    if (block !== undefined && filter.maxResults !== undefined && found.length > filter.maxResults) tooMany(filter, block.number)
  }
  if (filter.fromBlock <= last) {
    for (const row of blocks.logRows(filter.fromBlock, last, criteriaOf(filter))) {
      if (block?.number !== row.number) {
        tooManyBefore()
        block = { number: row.number, hash: bytesToHex(blocks.hash(row.number)!) as Hex, timestamp: blocks.timestamp(row.number) }
      }
      collectTransactionLogs(row.receipt, filter, found, { block, transactionHash: row.hash, index: row.index, firstLog: row.firstLog })
    }
    tooManyBefore()
  }
  if (filter.includePending === true) {
    const { env, hash, transactions, receipts } = chain.pending()
    const transactionHash = (index: number) => bytesToHex(transactions[index]!.hash()) as Hex
    collectLogs({ number: env.number, hash, timestamp: env.timestamp, receipts, transactionHash }, filter, found)
    if (filter.maxResults !== undefined && found.length > filter.maxResults) tooMany(filter, env.number)
  }
  return found
}

/** The log index's keys a filter needs (blockRows.ts): its addresses, and each topic position it names. */
function criteriaOf(filter: Pick<LogFilter, 'addresses' | 'topics'>): LogCriteria {
  const criteria: LogCriteria = []
  if (filter.addresses !== undefined && filter.addresses.length > 0) criteria.push(filter.addresses.map(addressKey))
  for (const [position, wanted] of (filter.topics ?? []).entries()) {
    if (wanted === null || (Array.isArray(wanted) && wanted.length === 0)) continue
    criteria.push((Array.isArray(wanted) ? wanted : [wanted]).map((topic) => topicKey(position, topic)))
  }
  return criteria
}

/** reth's refusal of a query whose logs pass the cap in block `over`: the range before it fits. */
function tooMany(filter: LogFilter, over: bigint): never {
  const fits = over > filter.fromBlock ? over - 1n : filter.fromBlock
  throw new LimitExceededError(`query exceeds max results ${filter.maxResults}, retry with the range ${filter.fromBlock}-${fits}`, 'logResults')
}

/** geth's rule: a log has at least as many topics as the filter has positions; null and [] there match any topic. */
export function matchesTopics(topics: Hex[], filter: LogFilter['topics']): boolean {
  if (filter === undefined) return true
  if (filter.length > topics.length) return false
  return filter.every((wanted, i) => {
    if (wanted === null) return true
    return Array.isArray(wanted) ? wanted.length === 0 || wanted.includes(topics[i]!) : wanted === topics[i]
  })
}

/** Whether a log passes a filter's addresses and topics. */
export function matchesLog(entry: Log, filter: Pick<LogFilter, 'addresses' | 'topics'>): boolean {
  return (
    (filter.addresses === undefined || filter.addresses.length === 0 || filter.addresses.includes(entry.address)) &&
    matchesTopics(entry.topics, filter.topics)
  )
}

/** What collecting a block's logs needs of it. */
export type BlockLogs = {
  number: bigint
  hash: Hex
  timestamp: bigint
  receipts: Receipt[]
  /** The hash of transaction `index`. */
  transactionHash(index: number): Hex
}

/** Every log of a block's transactions from `first` on, with its position in the block. */
export function logsOf(block: BlockLogs, first = 0): FoundLog[] {
  const found: FoundLog[] = []
  collectLogs(block, {}, found, first)
  return found
}

function collectLogs(block: BlockLogs, filter: Pick<LogFilter, 'addresses' | 'topics'>, found: FoundLog[], first = 0) {
  let firstLog = 0
  for (const [index, receipt] of block.receipts.entries()) {
    if (index >= first) collectTransactionLogs(receipt, filter, found, { block, transactionHash: block.transactionHash(index), index, firstLog })
    firstLog += receipt.logs.length
  }
}

/** The logs of one transaction that pass a filter, where `firstLog` is the index in its block of its first log. */
function collectTransactionLogs(
  receipt: Receipt,
  filter: Pick<LogFilter, 'addresses' | 'topics'>,
  found: FoundLog[],
  at: { block: { number: bigint; hash: Hex; timestamp: bigint }; transactionHash: Hex; index: number; firstLog: number },
) {
  for (const [offset, entry] of receipt.logs.entries()) {
    if (!matchesLog(entry, filter)) continue
    const { block } = at
    found.push({
      ...entry,
      blockNumber: block.number,
      blockHash: block.hash,
      blockTimestamp: block.timestamp,
      transactionHash: at.transactionHash,
      transactionIndex: at.index,
      logIndex: at.firstLog + offset,
    })
  }
}
