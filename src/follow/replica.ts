/**
 * `flashchain follow`: a replica of another flashchain node, its sequencer (docs/scaling-out.md). It starts from the
 * sequencer's stored chain (GET /snapshot), then runs each frame of the sequencer's flashblocks stream as the
 * sequencer built it, checking the block hash each one states, so that `pending`, `latest` and history are answered
 * here, subscriptions and its own /flashblocks stream included. Writes go to the sequencer (forward.ts).
 *
 * A frame that does not follow, or a gap the sequencer no longer keeps, makes it start again from a new snapshot: a
 * second node is loaded beside the first, which serves until the new one takes its place.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { hexToBytes } from '@ethereumjs/util'

import { checkStoreFile } from '../chain/storage/database.ts'
import { snapshotMeta } from '../chain/storage/snapshot.ts'
import { SEQUENCER_OPTIONS, STREAM_POSITION, createNode } from '../node.ts'
import { createFlashblocksStream } from '../server/flashblocksStream.ts'
import { createHttpServer } from '../server/http.ts'
import { transportLimits, webSocketLimits } from '../options.ts'
import { toQuantity } from '../hex.ts'
import { createFollower } from './follower.ts'
import { createForwarding } from './forward.ts'
import { MalformedFrameError, parseFrame } from './frames.ts'
import { SnapshotRefusedError, sequencerAt } from './sequencer.ts'
import { openFrameStream } from './stream.ts'

import type { Hex } from '../hex.ts'
import type { Node, SequencerOptions, StreamPosition } from '../node.ts'
import type { FlashchainOptions } from '../options.ts'
import type { FollowStatus } from '../rpc/method.ts'
import type { HttpServer } from '../server/http.ts'
import type { ChainEdit } from '../chain/types.ts'
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
/** How long a replaced node may finish the requests it is answering before it is closed. */
const DRAIN_MS = 30_000
/** How long after a refused snapshot a resync is tried again. */
const RETRY_REFUSED_MS = 5000
/** Why a resync closes the WebSocket connections (a close reason is at most 123 bytes). */
const RESYNC_CLOSE_REASON = 'the replica loaded its sequencer state again'

/** A node the replica loaded, with the requests it is answering. */
type Loaded = { node: Node; dir: string; inFlight: number; idle?: (() => void) | undefined }

export async function createReplica(options: ReplicaOptions): Promise<Replica> {
  const log = options.log ?? (() => {})
  const interval = options.flashblockInterval ?? 200
  const maxLagMs = options.maxLagMs ?? 1000
  const sourceUrl = new URL(options.source)
  if (!sourceUrl.searchParams.has('encoding')) sourceUrl.searchParams.set('encoding', 'json')
  const sequencer = sequencerAt(options.rpc, options.walletToken)
  // Each node this replica loads has a data dir of its own under the root, removed when it is replaced.
  const ownsRoot = options.dataDir === undefined
  const root = options.dataDir ?? mkdtempSync(join(tmpdir(), 'flashchain-replica-'))
  mkdirSync(root, { recursive: true })
  // What a replica that ran here before loaded: a replica starts from the sequencer's state, never from its own.
  for (const entry of readdirSync(root)) if (/^chain-\d+$/.test(entry)) rmSync(join(root, entry), { recursive: true, force: true })
  let generation = 0
  let current: Loaded | undefined
  let server: HttpServer | undefined
  let position = { number: 0n, index: 0 }
  let resyncing: number | undefined
  let closed = false
  /** Raw transactions forwarded and accepted, in this replica's pool until they run (read-your-writes), with when. */
  const forwarded = new Map<Hex, { raw: Uint8Array; at: number }>()
  /** How many of the edits the frame numbered `sequence` carries were taken before it came (flashchain_getUnsentEdits). */
  let taken = { sequence: -1, count: 0 }
  /**
   * Where the snapshot loaded stands in the stream (StreamPosition): the changes of earlier frames, and the first
   * `unsent` of frame `sequence`, are in the store already; only what an edit did to the block being built is applied.
   */
  let stored: StreamPosition = { sequence: -1, unsent: 0 }
  /** Why the last resync could not load the sequencer's state, and when; undefined once one could. */
  let failed: { reason: string; at: number } | undefined

  /** Puts a forwarded transaction in this replica's pool; one run already, or refused by its view, is left out. */
  function admit(raw: Uint8Array, at = performance.now()) {
    current?.node.chain.pool.sendRawTransaction(raw).then(
      (hash) => forwarded.set(hash, { raw, at }),
      () => {},
    )
  }

  const forward = createForwarding(options.rpc, (raw) => admit(hexToBytes(raw as Hex)))

  /**
   * Loads the sequencer's chain as stored now into a node of its own. A download that fails is tried again, backing
   * off; a refusal, or a chain this replica cannot run, is thrown.
   */
  async function load(): Promise<Loaded> {
    const dir = join(root, `chain-${generation++}`)
    const file = join(dir, 'chain.sqlite')
    try {
      mkdirSync(dir, { recursive: true })
      for (let wait = 250; ; wait = Math.min(wait * 2, 5000)) {
        if (closed) throw new Error('the replica closed')
        try {
          await sequencer.snapshot(file)
          // A fresh download has no pid file, so its first open would not check it (storage/database.ts).
          checkStoreFile(file)
          break
        } catch (error) {
          if (error instanceof SnapshotRefusedError) throw error
          log(`follow: cannot load the sequencer's state, trying again in ${wait} ms: ${error instanceof Error ? error.message : String(error)}`)
          await new Promise((resolve) => setTimeout(resolve, wait))
        }
      }
      if (snapshotMeta(file, 'fork') !== undefined) throw new Error('the sequencer is a fork (--fork-url): a replica of a fork is not supported yet')
      const given = snapshotMeta(file, SEQUENCER_OPTIONS)
      const { rpcGasCap, ...carried } = given === undefined ? ({} as SequencerOptions) : (JSON.parse(given) as SequencerOptions)
      const at = snapshotMeta(file, STREAM_POSITION)
      const node = await createNode(
        {
          ...options,
          ...carried,
          rpcGasCap: rpcGasCap === undefined ? undefined : BigInt(rpcGasCap),
          // An OP Stack sequencer's data dir says so, and the replica's copy of it is one too.
          opStack: snapshotMeta(file, 'opStack') === 'true',
          dataDir: dir,
          mining: 'manual',
          log,
        },
        { forward, status },
      )
      const head = node.chain.blocks.head()
      position = { number: head.header.number + 1n, index: 0 }
      stored = at === undefined ? { sequence: -1, unsent: 0 } : (JSON.parse(at) as StreamPosition)
      taken = { sequence: -1, count: 0 }
      return { node, dir, inFlight: 0 }
    } catch (error) {
      rmSync(dir, { recursive: true, force: true })
      throw error
    }
  }

  /** A test-control change the sequencer made (`inStore`: the snapshot holds it); why it does not apply, if it does not. */
  async function applyEdit(edit: ChainEdit, inStore = false): Promise<string | undefined> {
    if (!(await current!.node.chain.control.follow(edit, inStore)))
      return `this chain cannot take the sequencer's ${edit.kind} of block ${edit.number}`
    if (edit.kind === 'edit' || inStore) return undefined
    position = { number: edit.number + 1n, index: 0 }
    // The sequencer's pool went back to what it held then, which this replica cannot tell: read-your-writes starts over.
    forwarded.clear()
    return undefined
  }

  async function apply(frame: Frame): Promise<string | undefined> {
    const { chain } = current!.node
    // Those taken while the stream was quiet are not taken twice; those the snapshot holds, only for the pending block.
    const skip = frame.sequence === taken.sequence ? taken.count : 0
    const inStore = frame.sequence < stored.sequence ? frame.edits.length : frame.sequence === stored.sequence ? stored.unsent : 0
    for (const [i, edit] of frame.edits.entries()) {
      if (i < skip) continue
      const refused = await applyEdit(edit, i < inStore)
      if (refused !== undefined) return refused
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
    for (const [hash, { at }] of forwarded) {
      const location = chain.blocks.transaction(hash)
      if (location !== undefined && location.kind !== 'pool') forwarded.delete(hash)
      else if (now - at > FORWARDED_TTL_MS) stale.push(hash)
    }
    const { pending, queued } = chain.pool.content()
    for (const entry of [...pending, ...queued]) {
      if (forwarded.has(entry.hash) && entry.nonce < (latest.account(entry.from)?.nonce ?? 0n)) stale.push(entry.hash)
    }
    for (const hash of stale) forwarded.delete(hash)
    if (stale.length > 0) chain.pool.dropTransactions(stale)
  }

  /** Closes a replaced node once the requests it is answering are answered, or after DRAIN_MS. */
  async function retire(old: Loaded) {
    const drained = new Promise<void>((resolve) => {
      if (old.inFlight === 0) return resolve()
      old.idle = resolve
      setTimeout(resolve, DRAIN_MS).unref()
    })
    try {
      await old.node.close(() => drained)
    } finally {
      rmSync(old.dir, { recursive: true, force: true })
    }
  }

  async function resync() {
    // After a refusal, the next try waits its turn: each one costs the sequencer a snapshot.
    if (failed !== undefined && performance.now() - failed.at < RETRY_REFUSED_MS) return
    resyncing = performance.now()
    try {
      const next = await load()
      const old = current
      current = next
      failed = undefined
      for (const { raw, at } of forwarded.values()) admit(raw, at)
      // Their subscriptions were of the chain replaced: clients connect again.
      server?.restartWebSockets(RESYNC_CLOSE_REASON)
      // Following goes on meanwhile.
      if (old !== undefined) void retire(old).catch((error: unknown) => log(`follow: closing the chain replaced: ${String(error)}`))
    } catch (error) {
      // Refused (a setting to fix) or closed: the old node serves on, and /health says the replica is not following.
      failed = { reason: error instanceof Error ? error.message : String(error), at: performance.now() }
      log(`follow: ${failed.reason}`)
    } finally {
      resyncing = undefined
    }
  }

  const follower = createFollower({
    apply,
    expected: () => position,
    fetch: (number, index) => sequencer.frames(number, index),
    resync,
    head() {
      const head = current!.node.chain.blocks.head()
      return { number: head.header.number, hash: head.hash }
    },
    sequencerHead: () => sequencer.head(),
    sequencerHash: (number) => sequencer.blockHash(number),
    // The frame that will carry them skips those taken now.
    async quiet(next) {
      // No block may be sealed for long: what was forwarded and let go is dropped meanwhile too.
      prune()
      const { sequence, edits } = await sequencer.unsentEdits()
      // A frame came since the poll: the edits are its, and it is on its way.
      if (next !== undefined && sequence !== next) return { sequence }
      const already = Math.max(sequence === taken.sequence ? taken.count : 0, sequence === stored.sequence ? stored.unsent : 0)
      for (const edit of edits.slice(already)) {
        const refused = await applyEdit(edit)
        if (refused !== undefined) return { refused }
      }
      taken = { sequence, count: Math.max(edits.length, already) }
      return { sequence }
    },
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
          log(`follow: a frame that cannot be read: ${error instanceof MalformedFrameError ? error.message : String(error)}`)
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
      async dispatch(body, request) {
        const serving = current!
        serving.inFlight++
        try {
          return await serving.node.dispatch(body, request)
        } finally {
          if (--serving.inFlight === 0) serving.idle?.()
        }
      },
      ...transportLimits(options),
      health: () => {
        const now = status()
        return { ready: (now.state === 'following' || now.state === 'catching up') && now.lagMs <= maxLagMs, status: now }
      },
      websocket: {
        streams: {
          '/flashblocks': createFlashblocksStream({ subscribeFlashblocks: (listener) => current!.node.chain.events.subscribeFlashblocks(listener) }),
        },
        ...webSocketLimits(options),
      },
      log: options.log,
    })
  } catch (error) {
    closed = true
    stream.close()
    follower.stop()
    await current?.node.close()
    rmSync(ownsRoot ? root : (current?.dir ?? join(root, 'none')), { recursive: true, force: true })
    throw error
  }
  follower.start()

  function status(): FollowStatus {
    const node = current?.node
    const head = node?.chain.blocks.head()
    const now = performance.now()
    const behind = follower.behindSince
    const since = resyncing ?? failed?.at
    const lagMs = since !== undefined ? now - since : behind === undefined ? 0 : now - behind
    const { frames, gaps, refetched, resyncs, lastResync } = follower.counts
    return {
      source: withoutCredentials(options.source),
      rpc: withoutCredentials(options.rpc),
      state:
        node === undefined
          ? 'starting'
          : resyncing !== undefined || failed !== undefined
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
      lastResync:
        failed === undefined ? (lastResync ?? null) : `${lastResync ?? 'starting'}; the sequencer's state could not be loaded: ${failed.reason}`,
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
      await current?.node.close(() => server!.close())
      if (ownsRoot) rmSync(root, { recursive: true, force: true })
    },
  }
}

/** A URL as the status may show it to anyone: without a user, a password or a query (which may hold a key). */
function withoutCredentials(url: string): string {
  const parsed = new URL(url)
  parsed.username = ''
  parsed.password = ''
  parsed.search = ''
  return parsed.toString().replace(/\/$/, '')
}
