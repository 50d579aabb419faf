/**
 * The kinds of eth_subscribe: geth's `newHeads`, `logs` and `newPendingTransactions`, and Base's `newFlashblocks`,
 * `pendingLogs` and `newFlashblockTransactions`. Each turns the chain's events into notification results. One more
 * kind is the owner's: `flashchain_pendingApprovals`, the wallet's waiting prompts each time they change.
 *
 * A result is serialized once per event, whatever the number of subscribers: the texts are kept beside the event's
 * objects, and a session only wraps them in its envelope.
 */
import { z } from 'zod'

import { matchesLog } from '../chain/blocks/logs.ts'
import { SubscriptionKindNotFoundError } from './errors.ts'
import { toInvalidParamsError } from './dispatch.ts'
import { formatBlock, formatLog, formatReceipt, formatTransaction } from './format.ts'
import { logCriteria } from './schemas.ts'

import type { EventsService } from '../chain/services/events.ts'
import type { Block, BlockPosition, ChainEvent, FoundLog, LogFilter, PendingBlock, Transaction } from '../chain/types.ts'
import type { Approvals, PendingApproval } from '../wallet/approvals.ts'

/** Which logs a `logs` or `pendingLogs` subscription wants: any address of the list, and the topics by position. */
export type LogCriteria = Pick<LogFilter, 'addresses' | 'topics'>

export type SubscriptionRequest =
  | { kind: 'newHeads' }
  | { kind: 'logs'; criteria: LogCriteria }
  | { kind: 'newPendingTransactions'; full: boolean }
  | { kind: 'newFlashblocks' }
  | { kind: 'pendingLogs'; criteria: LogCriteria }
  | { kind: 'newFlashblockTransactions'; full: boolean }
  | { kind: 'flashchain_pendingApprovals' }

export const subscriptionKinds = [
  'newHeads',
  'logs',
  'newPendingTransactions',
  'newFlashblocks',
  'pendingLogs',
  'newFlashblockTransactions',
  'flashchain_pendingApprovals',
] as const

/** The kinds only the node's owner may open, as only the owner may call the methods that read the same state. */
export const ownerKinds: ReadonlySet<string> = new Set(['flashchain_pendingApprovals'])

// Other members (fromBlock, toBlock) are ignored, as geth's JSON decoding of a subscription's criteria does.
const criteria = z
  .object(logCriteria)
  .optional()
  .transform((value): LogCriteria => ({ addresses: value?.address === undefined ? undefined : [value.address].flat(), topics: value?.topics }))

/** The second argument of each kind; the kinds without one take none. */
const options = {
  newHeads: z.undefined(),
  logs: criteria,
  newPendingTransactions: z.boolean().optional(),
  newFlashblocks: z.undefined(),
  pendingLogs: criteria,
  newFlashblockTransactions: z.boolean().optional(),
  flashchain_pendingApprovals: z.undefined(),
} satisfies Record<(typeof subscriptionKinds)[number], z.ZodType>

/**
 * eth_subscribe's `[kind, options?]` as a typed request: an unknown kind gets geth's -32601, bad options -32602
 * naming the argument.
 */
export function parseSubscription(kind: string, option: unknown): SubscriptionRequest {
  if (!(subscriptionKinds as readonly string[]).includes(kind)) throw new SubscriptionKindNotFoundError(kind)
  const known = kind as (typeof subscriptionKinds)[number]
  const parsed = options[known].safeParse(option)
  if (!parsed.success) throw toInvalidParamsError({ ...parsed.error.issues[0]!, path: [1, ...parsed.error.issues[0]!.path] }, [kind, option])
  switch (known) {
    case 'logs':
    case 'pendingLogs':
      return { kind: known, criteria: parsed.data as LogCriteria }
    case 'newPendingTransactions':
    case 'newFlashblockTransactions':
      return { kind: known, full: parsed.data === true }
    default:
      return { kind: known }
  }
}

/** What subscriptions listen to: the chain's events, and the wallet's approval queue. */
export type SubscriptionSources = { events: EventsService; approvals: Approvals }

/** Listens for one subscription; `notify` sends one result. Returns what stops it. */
export function startSubscription(sources: SubscriptionSources, request: SubscriptionRequest, notify: (resultJson: Buffer) => boolean): () => void {
  if (request.kind === 'flashchain_pendingApprovals') return followApprovals(sources.approvals, notify)
  return sources.events.subscribe((event) => {
    for (const result of resultsOf(event, request)) if (!notify(result)) return
  })
}

/**
 * The waiting list as flashchain_getPendingApprovals answers it: first as it is, then after each change, so that a
 * client needs no request of its own. The first goes out on the next turn of the event loop, after the answer to a
 * lone eth_subscribe (which the dispatcher sends within this turn; a batch waits for its slowest call): the client
 * then knows the id it comes under. Changes before then are in that first list.
 */
function followApprovals(approvals: Approvals, notify: (resultJson: Buffer) => boolean): () => void {
  let started = false
  const first = setImmediate(() => {
    started = true
    notify(toJson(approvals.pending()))
  })
  const stop = approvals.subscribe((pending) => started && notify(approvalsJson(pending)))
  return () => {
    clearImmediate(first)
    stop()
  }
}

/** The notification results one chain event gives a subscription, as JSON texts in UTF-8, in order. */
function resultsOf(event: ChainEvent, request: Exclude<SubscriptionRequest, { kind: 'flashchain_pendingApprovals' }>): Buffer[] {
  switch (request.kind) {
    case 'newHeads':
      return event.type === 'sealed' ? [headerJson(event.block)] : []
    case 'logs':
      return event.type === 'sealed' ? matchingLogs(event.logs, request.criteria) : []
    case 'newPendingTransactions':
      if (event.type !== 'poolTransaction') return []
      return [request.full ? transactionJson(event.transaction) : hashJson(event.transaction.hash)]
    case 'newFlashblocks':
      return event.type === 'flashblock' ? [pendingBlockJson(event.block)] : []
    case 'pendingLogs':
      return event.type === 'flashblock' ? matchingLogs(event.logs, request.criteria) : []
    case 'newFlashblockTransactions': {
      if (event.type !== 'flashblock') return []
      const { block, first } = event
      const results: Buffer[] = []
      for (let index = first; index < block.transactions.length; index++) {
        results.push(request.full ? preconfirmedJson(block, index) : hashJson(block.transactions[index]!.hash))
      }
      return results
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Results, serialized once per object

/** A cache of JSON texts, in UTF-8, by the object they were made from; one per kind of result. */
function textsOf<Key extends object>(format: (key: Key) => unknown): (key: Key) => Buffer {
  const texts = new WeakMap<Key, Buffer>()
  return (key) => {
    let text = texts.get(key)
    if (text === undefined) texts.set(key, (text = toJson(format(key))))
    return text
  }
}

const toJson = (value: unknown): Buffer => Buffer.from(JSON.stringify(value))
/** A hash is a string, which a WeakMap cannot key; it is short enough to encode for each subscriber. */
const hashJson = (hash: string): Buffer => toJson(hash)

const logJson = textsOf(formatLog)

function matchingLogs(logs: FoundLog[], criteria: LogCriteria): Buffer[] {
  const results: Buffer[] = []
  for (const entry of logs) if (matchesLog(entry, criteria)) results.push(logJson(entry))
  return results
}

/** A sealed block's header as geth's newHeads sends it: every header field and the hash, no body. */
export function formatHeader(block: Block): Record<string, unknown> {
  const { transactions: _transactions, uncles: _uncles, size: _size, withdrawals: _withdrawals, ...header } = formatBlock(block, false)
  return header
}

const headerJson = textsOf(formatHeader)
const approvalsJson = textsOf((pending: PendingApproval[]) => pending)
const pendingBlockJson = textsOf((block: PendingBlock) => formatBlock(block, true))
const transactionJson = textsOf((transaction: Transaction) => formatTransaction(transaction))

/** A pre-confirmed transaction with its receipt's fields, as Base's newFlashblockTransactions sends it in full. */
export function formatPreconfirmed(block: PendingBlock, index: number): Record<string, unknown> {
  const { env } = block
  const position: BlockPosition = { hash: block.hash, number: env.number, timestamp: env.timestamp, baseFeePerGas: env.baseFeePerGas }
  let logIndex = 0
  for (let i = 0; i < index; i++) logIndex += block.receipts[i]!.logs.length
  const transaction = block.transactions[index]!
  const receipt = formatReceipt({ kind: 'preconfirmed', transaction, block: position, index, receipt: block.receipts[index]!, logIndex })
  return { ...formatTransaction(transaction, { block: position, index }), ...receipt }
}

/** By receipt: a pre-confirmed transaction's receipt is the same object in every flashblock of its block. */
const preconfirmedTexts = new WeakMap<object, Buffer>()
function preconfirmedJson(block: PendingBlock, index: number): Buffer {
  const receipt = block.receipts[index]!
  let text = preconfirmedTexts.get(receipt)
  if (text === undefined) preconfirmedTexts.set(receipt, (text = toJson(formatPreconfirmed(block, index))))
  return text
}
