import { bytesToHex } from '@ethereumjs/util'
import { Bloom } from '@ethereumjs/vm'

import { LimitExceededError } from '../errors.ts'
import { bloomMayMatch, bloomQuery } from './logsBloom.ts'

import type { Common } from '@ethereumjs/common'
import type { Hex } from '../../hex.ts'
import type { FoundLog, Log, LogFilter } from '../types.ts'
import type { BlockLogs, SealedBlocks } from './sealedBlocks.ts'
import type { PendingSnapshot } from './types.ts'

/**
 * eth_getLogs over sealed blocks, and the pending block when asked: only the blocks whose logs bloom may hold what
 * the filter looks for are read, so a scan of old blocks reads back only the receipts it needs.
 */
export function findLogs(filter: LogFilter, chain: { blocks: SealedBlocks; pending: () => PendingSnapshot; common: Common }): FoundLog[] {
  const { blocks } = chain
  const found: FoundLog[] = []
  const head = blocks.head().number
  const last = filter.toBlock < head ? filter.toBlock : head
  const query = bloomQuery(filter)
  for (let number = filter.fromBlock; number <= last; number++) {
    const bloom = blocks.logsBloom(number)
    if (bloom === undefined || !bloomMayMatch(new Bloom(bloom, chain.common), query)) continue
    collectLogs(blocks.logs(number)!, filter, found)
    if (filter.maxResults !== undefined && found.length > filter.maxResults) tooMany(filter, number)
  }
  if (filter.includePending === true) {
    const { env, hash, transactions, receipts } = chain.pending()
    const transactionHash = (index: number) => bytesToHex(transactions[index]!.hash()) as Hex
    collectLogs({ number: env.number, hash, timestamp: env.timestamp, receipts, transactionHash }, filter, found)
    if (filter.maxResults !== undefined && found.length > filter.maxResults) tooMany(filter, env.number)
  }
  return found
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

/** Every log of a block's transactions from `first` on, with its position in the block. */
export function logsOf(block: BlockLogs, first = 0): FoundLog[] {
  const found: FoundLog[] = []
  collectLogs(block, {}, found, first)
  return found
}

function collectLogs(block: BlockLogs, filter: Pick<LogFilter, 'addresses' | 'topics'>, found: FoundLog[], first = 0) {
  let logIndex = 0
  for (const [i, receipt] of block.receipts.entries()) {
    if (i < first) {
      logIndex += receipt.logs.length
      continue
    }
    for (const entry of receipt.logs) {
      if (matchesLog(entry, filter)) {
        found.push({
          ...entry,
          blockNumber: block.number,
          blockHash: block.hash,
          blockTimestamp: block.timestamp,
          transactionHash: block.transactionHash(i),
          transactionIndex: i,
          logIndex,
        })
      }
      logIndex++
    }
  }
}
