/**
 * Polled filters, as geth has them (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter): each
 * gathers what the chain announces until eth_getFilterChanges takes it, and one not polled for five minutes is
 * removed with what it gathered, so a client that went away costs at most five minutes of events.
 */
import { randomBytes } from 'node:crypto'

import { matchesLog } from '../chain/blocks/logs.ts'
import { FilterNotFoundError, InvalidParamsError } from '../errors.ts'
import { formatLog, formatTransaction } from './format.ts'

import type { z } from 'zod'
import type { Chain } from '../chain/chain.ts'
import type { FoundLog, LogFilter } from '../chain/types.ts'
import type { Hex } from '../hex.ts'
import type { LogJSON, TransactionJSON } from './format.ts'
import type { logFilter } from './schemas.ts'

/** eth_getLogs' and eth_newFilter's argument, as the schema reads it; tags are resolved at each use. */
export type LogQuery = z.output<typeof logFilter>

/** geth's default cap on the blocks one eth_getLogs may scan. */
const MAX_BLOCK_RANGE = 10_000n

/** The blocks and criteria a log query names now; -32602 for a bad range, -32001 for an unknown block. */
export function resolveLogQuery(chain: Chain, query: LogQuery): LogFilter {
  let fromBlock: bigint
  let toBlock: bigint
  if (query.blockHash !== undefined) {
    if (query.fromBlock !== undefined || query.toBlock !== undefined) {
      throw new InvalidParamsError('invalid argument 0: cannot specify both BlockHash and FromBlock/Choose BlockHash or FromBlock/ToBlock')
    }
    fromBlock = toBlock = chain.numberOf({ blockHash: query.blockHash })
  } else {
    fromBlock = chain.numberOf(query.fromBlock ?? 'latest')
    toBlock = chain.numberOf(query.toBlock ?? 'latest')
    if (fromBlock > toBlock) throw new InvalidParamsError('invalid block range params')
    if (toBlock - fromBlock > MAX_BLOCK_RANGE) throw new InvalidParamsError(`block range exceeds the limit of ${MAX_BLOCK_RANGE} blocks`)
  }
  return {
    fromBlock,
    toBlock,
    addresses: query.address === undefined ? undefined : [query.address].flat(),
    topics: query.topics,
    includePending: query.toBlock === 'pending',
  }
}

export type FilterChanges = LogJSON[] | Hex[] | TransactionJSON[]

export type Filters = {
  /** A filter of the logs sealed from now on that match the query (and its block numbers, when it gives numbers). */
  newLogFilter(query: LogQuery): Hex
  /** A filter of the hashes of blocks sealed from now on. */
  newBlockFilter(): Hex
  /** A filter of the transactions entering the pool from now on: hashes, or with `full` the transactions. */
  newPendingTransactionFilter(full: boolean): Hex
  /** What the filter gathered since the last poll; -32000 "filter not found" for an unknown or expired id. */
  changes(id: Hex): FilterChanges
  /** Every log the log filter's query matches now, as eth_getLogs answers it. */
  logs(id: Hex): LogJSON[]
  /** Removes a filter; false when there was none by that id. */
  uninstall(id: Hex): boolean
  close(): void
}

type Filter =
  | { kind: 'logs'; query: LogQuery; gathered: FoundLog[]; stop: () => void; polled: number }
  | { kind: 'blocks'; gathered: Hex[]; stop: () => void; polled: number }
  | { kind: 'transactions'; full: boolean; gathered: (Hex | TransactionJSON)[]; stop: () => void; polled: number }

/** geth's: a filter not polled for five minutes is removed. */
const defaultTimeout = 5 * 60_000

/** `now` reads the clock the timeout is measured on (wall time unless given). */
export function createFilters(chain: Chain, options: { timeout?: number; now?: () => number } = {}): Filters {
  const timeout = options.timeout ?? defaultTimeout
  const now = options.now ?? Date.now
  const filters = new Map<Hex, Filter>()
  const sweep = setInterval(
    () => {
      const time = now()
      for (const [id, filter] of filters) {
        if (time - filter.polled <= timeout) continue
        filter.stop()
        filters.delete(id)
      }
    },
    Math.max(10, Math.min(timeout / 4, 30_000)),
  ).unref()

  function install(make: (id: Hex) => Filter): Hex {
    const id = `0x${randomBytes(16).toString('hex')}` as Hex
    filters.set(id, make(id))
    return id
  }

  function find(id: Hex): Filter {
    const filter = filters.get(id.toLowerCase() as Hex)
    if (filter === undefined) throw new FilterNotFoundError()
    return filter
  }

  return {
    newLogFilter(query) {
      // Numbers in the query bound what the filter gathers; tags (latest, pending) do not.
      const from = typeof query.fromBlock === 'bigint' ? query.fromBlock : undefined
      const to = typeof query.toBlock === 'bigint' ? query.toBlock : undefined
      if (from !== undefined && to !== undefined && from > to) throw new InvalidParamsError('invalid block range params')
      const criteria = { addresses: query.address === undefined ? undefined : [query.address].flat(), topics: query.topics }
      return install(() => {
        const gathered: FoundLog[] = []
        const stop = chain.subscribe((event) => {
          if (event.type !== 'sealed') return
          for (const entry of event.logs) {
            if ((from !== undefined && entry.blockNumber < from) || (to !== undefined && entry.blockNumber > to)) continue
            if (matchesLog(entry, criteria)) gathered.push(entry)
          }
        })
        return { kind: 'logs', query, gathered, stop, polled: now() }
      })
    },
    newBlockFilter() {
      return install(() => {
        const gathered: Hex[] = []
        const stop = chain.subscribe((event) => {
          if (event.type === 'sealed') gathered.push(event.block.hash)
        })
        return { kind: 'blocks', gathered, stop, polled: now() }
      })
    },
    newPendingTransactionFilter(full) {
      return install(() => {
        const gathered: (Hex | TransactionJSON)[] = []
        const stop = chain.subscribe((event) => {
          if (event.type === 'poolTransaction') gathered.push(full ? formatTransaction(event.transaction) : event.transaction.hash)
        })
        return { kind: 'transactions', full, gathered, stop, polled: now() }
      })
    },
    changes(id) {
      const filter = find(id)
      filter.polled = now()
      const taken = filter.gathered.splice(0)
      return filter.kind === 'logs' ? (taken as FoundLog[]).map((entry) => formatLog(entry)) : (taken as Hex[] | TransactionJSON[])
    },
    logs(id) {
      const filter = find(id)
      if (filter.kind !== 'logs') throw new FilterNotFoundError()
      filter.polled = now()
      return chain.logs(resolveLogQuery(chain, filter.query)).map((entry) => formatLog(entry))
    },
    uninstall(id) {
      const key = id.toLowerCase() as Hex
      const filter = filters.get(key)
      if (filter === undefined) return false
      filter.stop()
      filters.delete(key)
      return true
    },
    close() {
      clearInterval(sweep)
      for (const filter of filters.values()) filter.stop()
      filters.clear()
    },
  }
}
