/**
 * Polled filters, as geth has them (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter): each
 * gathers what the chain announces until eth_getFilterChanges takes it, and one not polled for five minutes is
 * removed. Filters are capped per origin and in all, and share one journal of events per kind, so a filter nobody
 * polls costs a cursor, not a copy of every event (docs/filters.md).
 */
import { randomBytes } from 'node:crypto'

import { matchesLog } from '../chain/blocks/logs.ts'
import { FilterNotFoundError, InvalidParamsError, LimitExceededError } from './errors.ts'
import { createJournal } from './filterJournal.ts'
import { formatLog, formatTransaction } from './format.ts'

import type { z } from 'zod'
import type { BlocksService } from '../chain/services/blocks.ts'
import type { EventsService } from '../chain/services/events.ts'
import type { ChainEvent, FoundLog, LogFilter, Transaction } from '../chain/types.ts'
import type { Hex } from '../hex.ts'
import type { Cursor, Journal } from './filterJournal.ts'
import type { LogJSON, TransactionJSON } from './format.ts'
import type { logFilter } from './schemas.ts'

/** eth_getLogs' and eth_newFilter's argument, as the schema reads it; tags are resolved at each use. */
export type LogQuery = z.output<typeof logFilter>

/** geth's default cap on the blocks one eth_getLogs may scan. */
const MAX_BLOCK_RANGE = 10_000n

/** The blocks and criteria a log query names now; -32602 for a bad range, -32001 for an unknown block. */
export function resolveLogQuery(blocks: Pick<BlocksService, 'numberOf'>, query: LogQuery): LogFilter {
  let fromBlock: bigint
  let toBlock: bigint
  if (query.blockHash !== undefined) {
    if (query.fromBlock !== undefined || query.toBlock !== undefined) {
      throw new InvalidParamsError('invalid argument 0: cannot specify both BlockHash and FromBlock/Choose BlockHash or FromBlock/ToBlock')
    }
    fromBlock = toBlock = blocks.numberOf({ blockHash: query.blockHash })
  } else {
    fromBlock = blocks.numberOf(query.fromBlock ?? 'latest')
    toBlock = blocks.numberOf(query.toBlock ?? 'latest')
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

/** Who installs a filter, for the cap per origin: the HTTP `Origin` header, undefined for callers that send none. */
export type FilterOrigin = string | undefined

export type Filters = {
  /** A filter of the logs sealed from now on that match the query (and its block numbers, when it gives numbers). */
  newLogFilter(query: LogQuery, origin?: FilterOrigin): Hex
  /** A filter of the hashes of blocks sealed from now on. */
  newBlockFilter(origin?: FilterOrigin): Hex
  /** A filter of the transactions entering the pool from now on: hashes, or with `full` the transactions. */
  newPendingTransactionFilter(full: boolean, origin?: FilterOrigin): Hex
  /** What the filter gathered since the last poll; -32000 "filter not found" for an unknown or expired id. */
  changes(id: Hex): FilterChanges
  /** A log filter's query, for eth_getFilterLogs to answer as eth_getLogs does; -32000 "filter not found" otherwise. */
  query(id: Hex): LogQuery
  /** Removes a filter; false when there was none by that id. */
  uninstall(id: Hex): boolean
  /** Filters installed now. */
  readonly size: number
  close(): void
}

export type FiltersOptions = {
  /** ms a filter lives without a poll (default geth's five minutes). */
  timeout?: number
  /** Reads the clock the timeout is measured on (wall time unless given). */
  now?: () => number
  /** Most filters installed at once, from every origin together (default 10000). */
  maxFilters?: number
  /** Most filters installed at once by one origin; callers without an Origin header count as one (default 1000). */
  maxFiltersPerOrigin?: number
  /**
   * Most events (block hashes, transactions, logs) held for the filter of each kind furthest behind; a filter that
   * falls further behind between two polls is removed (default 10000).
   */
  maxBacklog?: number
}

/** geth's: a filter not polled for five minutes is removed. */
const defaultTimeout = 5 * 60_000

/** The caps' defaults; docs/filters.md gives the reasons. */
const DEFAULT_MAX_FILTERS = 10_000
const DEFAULT_MAX_FILTERS_PER_ORIGIN = 1_000
const DEFAULT_MAX_BACKLOG = 10_000

/** A pool transaction as the journal holds it; its JSON is made for the first filter that wants it in full. */
type PoolEntry = { transaction: Transaction; json?: TransactionJSON }

type Journals = {
  blocks: Journal<Hex, Hex>
  transactions: Journal<PoolEntry, Hex>
  logs: Journal<FoundLog[], Hex>
}

type Filter = { origin: string } & (
  | {
      kind: 'logs'
      query: LogQuery
      from: bigint | undefined
      to: bigint | undefined
      criteria: Pick<LogFilter, 'addresses' | 'topics'>
      cursor: Cursor<Hex>
    }
  | { kind: 'blocks'; cursor: Cursor<Hex> }
  | { kind: 'transactions'; full: boolean; cursor: Cursor<Hex> }
)

/**
 * The filters of the node, each a cursor in the journal of its kind, so that an event costs one append whatever the
 * number of filters, and a poll costs what the filter has to read.
 */
export function createFilters({ events }: { events: EventsService }, options: FiltersOptions = {}): Filters {
  const timeout = options.timeout ?? defaultTimeout
  const now = options.now ?? Date.now
  const maxFilters = options.maxFilters ?? DEFAULT_MAX_FILTERS
  const maxPerOrigin = options.maxFiltersPerOrigin ?? DEFAULT_MAX_FILTERS_PER_ORIGIN
  const capacity = options.maxBacklog ?? DEFAULT_MAX_BACKLOG
  const journals: Journals = {
    blocks: createJournal({ capacity }),
    transactions: createJournal({ capacity }),
    logs: createJournal({ capacity }),
  }
  const filters = new Map<Hex, Filter>()
  const perOrigin = new Map<string, number>()
  // One listener for every filter, and only while there are filters: the chain builds no event for nobody.
  let stopListening: (() => void) | undefined

  function onEvent(event: ChainEvent) {
    if (event.type === 'sealed') {
      removeAll(journals.blocks.append(event.block.hash))
      if (event.logs.length > 0) removeAll(journals.logs.append(event.logs, event.logs.length))
    } else if (event.type === 'poolTransaction') {
      removeAll(journals.transactions.append({ transaction: event.transaction }))
    }
  }

  const sweep = setInterval(
    () => {
      const idleSince = now() - timeout
      for (const journal of Object.values(journals)) removeAll(journal.closeIdleSince(idleSince))
    },
    Math.max(10, Math.min(timeout / 4, 30_000)),
  ).unref()

  /** Forgets filters whose cursors the journal has already closed. */
  function removeAll(cursors: Cursor<Hex>[]) {
    for (const cursor of cursors) forget(cursor.owner)
  }

  function forget(id: Hex) {
    const filter = filters.get(id)
    if (filter === undefined) return
    filters.delete(id)
    const count = perOrigin.get(filter.origin)! - 1
    if (count === 0) perOrigin.delete(filter.origin)
    else perOrigin.set(filter.origin, count)
    if (filters.size === 0) {
      stopListening?.()
      stopListening = undefined
    }
  }

  function install(origin: FilterOrigin, make: (id: Hex, time: number) => Filter): Hex {
    const key = origin ?? ''
    const count = perOrigin.get(key) ?? 0
    if (count >= maxPerOrigin) {
      throw new LimitExceededError(
        `too many filters: ${maxPerOrigin} per origin (${origin ?? 'requests without an Origin header'}); eth_uninstallFilter frees one`,
      )
    }
    if (filters.size >= maxFilters) throw new LimitExceededError(`too many filters: ${maxFilters} in all; eth_uninstallFilter frees one`)
    const id = `0x${randomBytes(16).toString('hex')}` as Hex
    filters.set(id, make(id, now()))
    perOrigin.set(key, count + 1)
    stopListening ??= events.subscribe(onEvent)
    return id
  }

  function find(id: Hex): Filter {
    const filter = filters.get(id.toLowerCase() as Hex)
    if (filter === undefined) throw new FilterNotFoundError()
    return filter
  }

  function journalOf(filter: Filter): Journal<unknown, Hex> {
    return journals[filter.kind] as Journal<unknown, Hex>
  }

  return {
    newLogFilter(query, origin) {
      // Numbers in the query bound what the filter gathers; tags (latest, pending) do not.
      const from = typeof query.fromBlock === 'bigint' ? query.fromBlock : undefined
      const to = typeof query.toBlock === 'bigint' ? query.toBlock : undefined
      if (from !== undefined && to !== undefined && from > to) throw new InvalidParamsError('invalid block range params')
      const criteria = { addresses: query.address === undefined ? undefined : [query.address].flat(), topics: query.topics }
      return install(origin, (id, time) => ({
        origin: origin ?? '',
        kind: 'logs',
        query,
        from,
        to,
        criteria,
        cursor: journals.logs.open(id, time),
      }))
    },
    newBlockFilter(origin) {
      return install(origin, (id, time) => ({ origin: origin ?? '', kind: 'blocks', cursor: journals.blocks.open(id, time) }))
    },
    newPendingTransactionFilter(full, origin) {
      return install(origin, (id, time) => ({ origin: origin ?? '', kind: 'transactions', full, cursor: journals.transactions.open(id, time) }))
    },
    changes(id) {
      const filter = find(id)
      switch (filter.kind) {
        case 'blocks':
          return journals.blocks.read(filter.cursor, now())
        case 'transactions': {
          const entries = journals.transactions.read(filter.cursor, now())
          if (!filter.full) return entries.map((entry) => entry.transaction.hash)
          return entries.map((entry) => {
            entry.json ??= formatTransaction(entry.transaction)
            return entry.json
          })
        }
        case 'logs': {
          const { from, to, criteria } = filter
          const found: LogJSON[] = []
          for (const logs of journals.logs.read(filter.cursor, now())) {
            for (const entry of logs) {
              if ((from !== undefined && entry.blockNumber < from) || (to !== undefined && entry.blockNumber > to)) continue
              if (matchesLog(entry, criteria)) found.push(formatLog(entry))
            }
          }
          return found
        }
      }
    },
    query(id) {
      const filter = find(id)
      if (filter.kind !== 'logs') throw new FilterNotFoundError()
      // As geth: only eth_getFilterChanges counts as a poll that keeps the filter alive.
      return filter.query
    },
    uninstall(id) {
      const filter = filters.get(id.toLowerCase() as Hex)
      if (filter === undefined) return false
      journalOf(filter).close(filter.cursor)
      forget(filter.cursor.owner)
      return true
    },
    get size() {
      return filters.size
    },
    close() {
      clearInterval(sweep)
      for (const filter of filters.values()) journalOf(filter).close(filter.cursor)
      filters.clear()
      perOrigin.clear()
      stopListening?.()
      stopListening = undefined
    },
  }
}
