/**
 * `flashchain follow`: a replica of another flashchain node, its sequencer (docs/scaling-out.md). It starts from the
 * sequencer's stored chain (GET /snapshot), then runs each frame of the sequencer's flashblocks stream as the
 * sequencer built it, checking the block hash each one states, so that `pending`, `latest` and history are answered
 * here, subscriptions and its own /flashblocks stream included. Writes go to the sequencer (forward.ts).
 *
 * A frame that does not follow, or a gap the sequencer no longer keeps, makes it start again from a new snapshot: a
 * second node is loaded beside the first, which serves until the new one takes its place.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { hexToBytes } from '@ethereumjs/util'

import { createNode } from '../node.ts'
import { createFlashblocksStream } from '../server/flashblocksStream.ts'
import { createHttpServer } from '../server/http.ts'
import { toQuantity } from '../hex.ts'
import { createFollower } from './follower.ts'
import { createForwarding } from './forward.ts'
import { MalformedFrameError, frameOf, parseFrame } from './frames.ts'
import { openFrameStream } from './stream.ts'

import type { Hex } from '../hex.ts'
import type { Node } from '../node.ts'
import type { FlashchainOptions } from '../options.ts'
import type { FlashblockJSON } from '../rpc/flashblocks.ts'
import type { FollowStatus } from '../rpc/method.ts'
import type { HttpServer } from '../server/http.ts'
import type { Frame } from './frames.ts'

export type ReplicaOptions = Omit<FlashchainOptions, 'fresh' | 'mining' | 'fork' | 'importBlocks'> & {
  /** The sequencer's flashblocks stream: `ws://host:port/flashblocks`. */
  source: string
  /** The sequencer's JSON-RPC endpoint: `http://host:port`. */
  rpc: string
  /** GET /health answers 503 while the replica is further behind the stream than this, ms (default 1000). */
  maxLagMs?: number
  /** How long a frame that came early waits for the ones before it before they are fetched, ms (an interval / 4). */
  gapWaitMs?: number
}

export type Replica = {
  url: string
  status(): FollowStatus
  close(): Promise<void>
}

/** How long a forwarded transaction the replica has not seen run stays in its pool, for read-your-writes. */
const FORWARDED_TTL_MS = 60_000

export async function createReplica(options: ReplicaOptions): Promise<Replica> {
  const log = options.log ?? (() => {})
  const interval = options.flashblockInterval ?? 200
  const maxLagMs = options.maxLagMs ?? 1000
  const sourceUrl = new URL(options.source)
  if (!sourceUrl.searchParams.has('encoding')) sourceUrl.searchParams.set('encoding', 'json')
  const rpc = options.rpc
  // Each node this replica loads has a data dir of its own under the root, removed when it is replaced.
  const ownsRoot = options.dataDir === undefined
  const root = options.dataDir ?? mkdtempSync(join(tmpdir(), 'flashchain-replica-'))
  mkdirSync(root, { recursive: true })
  // What a replica that ran here before loaded: a replica starts from the sequencer's state, never from its own.
  for (const entry of readdirSync(root)) if (/^chain-\d+$/.test(entry)) rmSync(join(root, entry), { recursive: true, force: true })
  let generation = 0
  let current: { node: Node; dir: string } | undefined
  let server: HttpServer | undefined
  let position = { number: 0n, index: 0 }
  let resyncing: number | undefined
  let closed = false
  /** Raw transactions forwarded and accepted, kept in this replica's pool until they run: read-your-writes. */
  const forwarded = new Map<Hex, number>()

  async function call<T>(method: string, params: unknown[]): Promise<T> {
    const response = await fetch(rpc, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    const body = (await response.json()) as { result?: T; error?: { code: number; message: string } }
    if (body.error !== undefined) throw Object.assign(new Error(body.error.message), { code: body.error.code })
    return body.result as T
  }

  const forward = createForwarding(rpc, (raw) => {
    const node = current?.node
    node?.chain.pool
      .sendRawTransaction(hexToBytes(raw as Hex))
      .then((hash) => forwarded.set(hash, performance.now()))
      // Already run here (its frame came first), or refused by this replica's view: the sequencer has it either way.
      .catch(() => {})
  })

  /** Loads the sequencer's chain as stored now into a node of its own. */
  async function load(): Promise<{ node: Node; dir: string }> {
    const headers: Record<string, string> = {}
    if (options.walletToken !== undefined) headers.authorization = `Bearer ${options.walletToken}`
    const response = await fetch(new URL('/snapshot', rpc), { headers })
    if (response.status !== 200) throw new Error(`the sequencer refused its snapshot (HTTP ${response.status}): ${await response.text()}`)
    const dir = join(root, `chain-${generation++}`)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'chain.sqlite'), Buffer.from(await response.arrayBuffer()))
    try {
      const node = await createNode({ ...options, dataDir: dir, mining: 'manual', log }, { forward, status })
      const head = node.chain.blocks.head()
      position = { number: head.header.number + 1n, index: 0 }
      forwarded.clear()
      return { node, dir }
    } catch (error) {
      rmSync(dir, { recursive: true, force: true })
      throw error
    }
  }

  async function apply(frame: Frame): Promise<string | undefined> {
    const { chain } = current!.node
    for (const edit of frame.edits) {
      if (!(await chain.control.follow(edit))) return `this chain cannot take the sequencer's ${edit.kind} of block ${edit.number}`
      if (edit.kind !== 'edit') position = { number: edit.number + 1n, index: 0 }
    }
    if (frame.number !== position.number || frame.index !== position.index) return `block ${position.number}'s flashblock ${position.index} was next`
    const result = await chain.producer.follow({ env: frame.env, transactions: frame.transactions, last: frame.sealed })
    if ('refused' in result) return result.refused
    if (result.hash !== frame.blockHash) return `the sequencer's block hash is ${frame.blockHash}, this chain's ${result.hash}`
    position = frame.sealed ? { number: frame.number + 1n, index: 0 } : { number: frame.number, index: frame.index + 1 }
    if (frame.sealed) prune()
    return undefined
  }

  /** Forgets forwarded transactions that ran, and drops those the sequencer let go (too old, or their nonce used). */
  function prune() {
    const { chain } = current!.node
    const latest = chain.state.stateAt('latest')
    const now = performance.now()
    const stale: Hex[] = []
    for (const [hash, at] of forwarded) {
      const location = chain.blocks.transaction(hash)
      if (location !== undefined && location.kind !== 'pool') forwarded.delete(hash)
      else if (now - at > FORWARDED_TTL_MS) stale.push(hash)
    }
    for (const entry of chain.pool.content().pending.concat(chain.pool.content().queued)) {
      if (forwarded.has(entry.hash) && entry.nonce < (latest.account(entry.from)?.nonce ?? 0n)) stale.push(entry.hash)
    }
    for (const hash of stale) forwarded.delete(hash)
    if (stale.length > 0) chain.pool.dropTransactions(stale)
  }

  async function resync(reason: string) {
    resyncing = performance.now()
    try {
      let next: { node: Node; dir: string } | undefined
      while (next === undefined && !closed) {
        try {
          next = await load()
        } catch (error) {
          log(`follow: cannot load the sequencer's state: ${error instanceof Error ? error.message : String(error)}`)
          await new Promise((resolve) => setTimeout(resolve, 500))
        }
      }
      if (next === undefined) return
      const old = current
      current = next
      server?.restartWebSockets(`this replica started again from its sequencer's state: ${reason}`)
      if (old !== undefined) {
        await old.node.close()
        rmSync(old.dir, { recursive: true, force: true })
      }
    } finally {
      resyncing = undefined
    }
  }

  const follower = createFollower({
    apply,
    expected: () => position,
    async fetch(number, index) {
      try {
        return (await call<FlashblockJSON[]>('flashchain_getFlashblocks', [toQuantity(number), index])).map(frameOf)
      } catch (error) {
        if ((error as { code?: number }).code === -32001) return undefined
        throw error
      }
    },
    resync,
    gapWaitMs: options.gapWaitMs ?? Math.max(20, Math.floor(interval / 4)),
    log,
  })

  // The stream first: what the sequencer publishes while the snapshot loads waits, and nothing falls between.
  const stream = openFrameStream(
    sourceUrl.toString(),
    {
      frame(text) {
        try {
          follower.receive(parseFrame(text))
        } catch (error) {
          // Its place is unknown: the frames after it wait for it, and the gap is fetched.
          if (error instanceof MalformedFrameError) log(`follow: ${error.message}`)
          else throw error
        }
      },
      opened: () => follower.connected(),
      poll: () => follower.poll(),
      log,
    },
    { quietMs: 3 * interval },
  )

  try {
    current = await load()
    server = await createHttpServer({
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 8545,
      dispatch: (body, request) => current!.node.dispatch(body, request),
      maxBodyBytes: options.maxBodyBytes,
      maxConnections: options.maxConnections,
      maxBufferedBytes: options.maxBufferedBytes,
      writeTimeout: options.writeTimeout,
      maxTotalOutputBytes: options.maxTotalOutputBytes,
      allowedHosts: options.allowedHosts,
      health: () => {
        const now = status()
        return { ready: now.state !== 'starting' && now.state !== 'resyncing' && now.state !== 'reconnecting' && now.lagMs <= maxLagMs, status: now }
      },
      websocket: {
        streams: {
          '/flashblocks': createFlashblocksStream({ subscribeFlashblocks: (listener) => current!.node.chain.events.subscribeFlashblocks(listener) }),
        },
        maxOutputBytes: options.maxOutputBytes,
        maxSubscriptions: options.maxSubscriptions,
        maxTotalSubscriptions: options.maxTotalSubscriptions,
      },
      log: options.log,
    })
  } catch (error) {
    closed = true
    stream.close()
    follower.stop()
    await current?.node.close()
    rmSync(ownsRoot ? root : join(root, `chain-${generation - 1}`), { recursive: true, force: true })
    throw error
  }

  follower.start()

  function status(): FollowStatus {
    const node = current?.node
    const head = node?.chain.blocks.head()
    const now = performance.now()
    const behind = follower.behindSince
    const lagMs = resyncing !== undefined ? now - resyncing : behind === undefined ? 0 : now - behind
    const { frames, gaps, refetched, resyncs, lastResync } = follower.counts
    return {
      source: options.source,
      rpc,
      state:
        node === undefined
          ? 'starting'
          : resyncing !== undefined
            ? 'resyncing'
            : !stream.connected
              ? 'reconnecting'
              : follower.catchingUp
                ? 'catching up'
                : 'following',
      head: head === undefined ? { number: '0x0', hash: '0x' } : { number: toQuantity(head.header.number), hash: head.hash },
      pending: position.index === 0 ? null : { number: toQuantity(position.number), index: position.index - 1 },
      lagMs: Math.round(lagMs),
      frames,
      gaps,
      refetchedFrames: refetched,
      reconnects: stream.reconnects,
      resyncs,
      lastResync: lastResync ?? null,
    }
  }

  return {
    url: server.url,
    status,
    async close() {
      closed = true
      stream.close()
      follower.stop()
      await follower.settled()
      const node = current?.node
      await node?.close(() => server!.close())
      if (ownsRoot) rmSync(root, { recursive: true, force: true })
    },
  }
}
