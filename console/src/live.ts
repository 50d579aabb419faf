/**
 * The chain as it happens, from the node's public subscriptions on one WebSocket: newPendingTransactions (when a
 * transaction arrives), newFlashblocks (the pending block after each flashblock) and newHeads (each sealed block).
 * It keeps the block being built and the last few sealed ones, flashblock by flashblock. On the same socket, the
 * owner's flashchain_pendingApprovals: the wallet's waiting prompts, sent again each time they change.
 */
import { rpc } from './rpc.ts'
import { createStore } from './store.ts'

import type { Hex, RpcBlock } from 'viem'
import type { ResultOf } from './rpc.ts'

export type Head = { number: bigint; hash: Hex | null; transactions: number; gasUsed: bigint; timestamp: string }

export type FlashTransaction = {
  hash: Hex
  from: Hex
  to: Hex | null
  /** Milliseconds from the transaction's arrival in the pool to its flashblock, when the page saw both. */
  preconfirmMs?: number
}

export type Flashblock = {
  /** Its index in the block; undefined in the block the page joined halfway, whose earlier flashblocks it missed. */
  index: number | undefined
  receivedAt: number
  transactions: FlashTransaction[]
}

export type TimelineBlock = { number: bigint; flashblocks: Flashblock[]; sealed?: Head }

export type Live = { connected: boolean; pending?: Head; latest?: Head; blocks: TimelineBlock[] }

export type PendingApprovals = ResultOf<'flashchain_getPendingApprovals'>

/**
 * Where the waiting prompts come from. `subscribed`: the subscription's latest list. `connecting`: the page has just
 * opened its socket and asked. `unsubscribed`: the socket is down, or the node refused the subscription (it is the
 * owner's, and a browser's WebSocket cannot carry the wallet token a non-loopback bind wants), so views ask the node
 * themselves.
 */
export type ApprovalFeed = { state: 'connecting' } | { state: 'subscribed'; approvals: PendingApprovals } | { state: 'unsubscribed' }

/** The block being built and this many sealed blocks before it. */
const KEPT_BLOCKS = 6
/** Pool arrivals older than this are forgotten, as a transaction that waits that long is stuck, not slow. */
const ARRIVAL_MEMORY_MS = 60_000

export const live = createStore<Live>({ connected: false, blocks: [] })
export const approvalFeed = createStore<ApprovalFeed>({ state: 'connecting' })

// Blocks as the node sends them, read through viem's wire types: the node declares its blocks only as JSON objects
// (src/rpc/format.ts). A flashblock's pending block carries its transactions; a header (newHeads) has none.
type FullBlock = RpcBlock<'latest', true>
type Header = RpcBlock<'latest', false>

const headOf = (block: FullBlock | Header, transactions = block.transactions.length): Head => ({
  number: BigInt(block.number),
  hash: block.hash,
  transactions,
  gasUsed: BigInt(block.gasUsed),
  timestamp: block.timestamp,
})

/** When each transaction entered the pool, by hash (performance.now()). */
const arrivals = new Map<Hex, number>()
/** The newest sealed block the page saw sealing: the block after it is seen from its flashblock 0. */
let sealedSeen: bigint | undefined

function update(change: (state: Live) => Live): void {
  live.set(change(live.get()))
}

function onFlashblock(block: FullBlock): void {
  const now = performance.now()
  const number = BigInt(block.number)
  update((state) => {
    // A block number seen again (evm_revert, anvil_reset) starts the timeline over from it.
    let blocks = state.blocks.filter((entry) => entry.number < number || (entry.number === number && entry.sealed === undefined))
    let current = blocks.find((entry) => entry.number === number)
    if (current === undefined) {
      current = { number, flashblocks: [] }
      blocks = [current, ...blocks].slice(0, KEPT_BLOCKS)
    }
    const known = current.flashblocks.reduce((count, flashblock) => count + flashblock.transactions.length, 0)
    const fresh = block.transactions.slice(known).map((tx): FlashTransaction => {
      const arrived = arrivals.get(tx.hash)
      arrivals.delete(tx.hash)
      return { hash: tx.hash, from: tx.from, to: tx.to, ...(arrived === undefined ? {} : { preconfirmMs: now - arrived }) }
    })
    const fromStart = current.flashblocks.length > 0 ? current.flashblocks[0]!.index !== undefined : sealedSeen === number - 1n
    const flashblock: Flashblock = { index: fromStart ? current.flashblocks.length : undefined, receivedAt: Date.now(), transactions: fresh }
    const updated = { ...current, flashblocks: [...current.flashblocks, flashblock] }
    return { ...state, pending: headOf(block), blocks: blocks.map((entry) => (entry === current ? updated : entry)) }
  })
}

function onHead(header: Header): void {
  const number = BigInt(header.number)
  sealedSeen = number
  // A header has no transaction list: the count comes from the flashblocks, or from the node for a block the page
  // joined halfway.
  const tracked = live.get().blocks.find((entry) => entry.number === number)
  const complete = tracked?.flashblocks[0]?.index !== undefined
  const count = complete ? tracked!.flashblocks.reduce((sum, flashblock) => sum + flashblock.transactions.length, 0) : undefined
  const seal = (transactions: number) => {
    const head = headOf({ ...header, transactions: [] }, transactions)
    update((state) => ({
      ...state,
      // Only the newest seal moves the head: a count fetched for an older block may come back after it.
      latest: sealedSeen === number ? head : state.latest,
      blocks: state.blocks.map((entry) => (entry.number === number ? { ...entry, sealed: head } : entry)),
    }))
  }
  if (count !== undefined) seal(count)
  else
    rpc('eth_getBlockTransactionCountByHash', [header.hash]).then(
      (hex) => seal(Number(hex ?? 0)),
      () => seal(0),
    )
}

function onPendingTransaction(hash: Hex): void {
  const now = performance.now()
  arrivals.set(hash, now)
  // Maps iterate in insertion order: the oldest arrivals come first.
  for (const [old, at] of arrivals) {
    if (now - at < ARRIVAL_MEMORY_MS) break
    arrivals.delete(old)
  }
}

function onApprovals(approvals: PendingApprovals): void {
  approvalFeed.set({ state: 'subscribed', approvals })
}

const handlers: Record<string, (result: never) => void> = {
  newPendingTransactions: onPendingTransaction,
  newFlashblocks: onFlashblock,
  newHeads: onHead,
  flashchain_pendingApprovals: onApprovals,
}

/** Both heads as they are now, for a page that has just opened (or reconnected). */
async function loadHeads(): Promise<void> {
  const [latest, pending] = (await Promise.all([
    rpc('eth_getBlockByNumber', ['latest', false]),
    rpc('eth_getBlockByNumber', ['pending', false]),
  ])) as [Header, Header]
  update((state) => ({ ...state, latest: state.latest ?? headOf(latest), pending: state.pending ?? headOf(pending) }))
}

/** Connects, subscribes, and reconnects a second after the socket closes. A refused subscription is left alone. */
export function connectLive(): void {
  const socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`)
  const kinds = new Map<number, string>()
  const subscriptions = new Map<string, string>()
  socket.onopen = () => {
    update((state) => ({ ...state, connected: true }))
    Object.keys(handlers).forEach((kind, id) => {
      kinds.set(id, kind)
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_subscribe', params: [kind] }))
    })
    loadHeads().catch(() => {})
  }
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data as string) as { id?: number; result?: string; params?: { subscription: string; result: never } }
    if (message.id !== undefined && typeof message.result === 'string') subscriptions.set(message.result, kinds.get(message.id)!)
    // An answer without a subscription id is a refusal: the owner's kind, to a page without the wallet token.
    else if (message.id !== undefined && kinds.get(message.id) === 'flashchain_pendingApprovals') approvalFeed.set({ state: 'unsubscribed' })
    else if (message.params !== undefined) handlers[subscriptions.get(message.params.subscription) ?? '']?.(message.params.result)
  }
  socket.onclose = () => {
    sealedSeen = undefined
    update((state) => ({ ...state, connected: false }))
    approvalFeed.set({ state: 'unsubscribed' })
    setTimeout(connectLive, 1000)
  }
}
