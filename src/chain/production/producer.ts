import { bytesToHex } from '@ethereumjs/util'

import { followedEnv, nextEnv, withTimestamp } from '../blocks/env.ts'
import { pendingIndexOf } from '../blocks/types.ts'
import { setHardforkFor } from '../execution/executor.ts'
import { yieldToEventLoop } from '../../runtime/eventLoop.ts'
import { buildBlockOf, includePooled, includeTransaction, openBlock } from './building.ts'
import { executeBlock } from './executeBlock.ts'
import { createFlashblockClock } from './flashblockClock.ts'
import { createPreconfirmationWaiters } from './preconfirmationWaiters.ts'
import { sealBlocks } from './sealBlocks.ts'
import { createSealLog } from './sealLog.ts'
import { createCostEstimate } from './costs.ts'
import { createSystemWorkLookahead } from './startBuilder.ts'
import { flashblockOf, idleHeader, previewRoots, rootsOf } from './flashblockPreview.ts'
import { FlashblockAccesses } from '../state/accesses.ts'
import { createOverlay } from '../state/overlay.ts'
import { sealedWrites } from '../state/sealedWrites.ts'
import { createStateDiff, isEmptyDiff, mergeDiff } from '../state/types.ts'

import type { Block } from '@ethereumjs/block'
import type { StatedEnv } from '../blocks/env.ts'
import type { PendingSnapshot, SealedBlock } from '../blocks/types.ts'
import type { Building, Preview } from './building.ts'
import type { ProducerHost } from './producerHost.ts'
import type { BlockStamps } from './sealBlocks.ts'
import type { PoolTransaction } from './txpool.ts'
import type { StateEdit } from '../state/edits.ts'
import type { StateDiff } from '../state/types.ts'
import type { Hex } from '../../hex.ts'
import type { BlockEnv, Receipt } from '../types.ts'

/**
 * The single writer. It executes pool transactions on top of the block being built, publishes the result as a
 * flashblock, and seals blocks. Every entry point runs on one queue, so the clock and admin calls never interleave.
 */
export type Producer = {
  /** The pending block as of the newest flashblock (or the idle N+1 view when nothing is being built). */
  pending(): PendingSnapshot
  /** Executes what the pool holds (until `until`, a performance.now() time; see includePooled) and publishes one flashblock. */
  preconfirm(until?: number): Promise<PendingSnapshot>
  /** Pre-confirms what is pending, then seals the block. */
  seal(options?: { timestamp?: bigint }): Promise<SealedBlock>
  /** Seals `count` blocks on the writer's queue in slices (sealBlocks.ts), each at once where it can (sealAtOnce). */
  sealBlocks(count: bigint, stamps: BlockStamps): Promise<SealedBlock>
  /** The pending block as of one of the block's flashblocks, or the idle one, by the hash it carries; else undefined. */
  pendingByHash(hash: Hex): PendingSnapshot | undefined
  /** Resolves once the transaction is pre-confirmed (true), or after `timeoutMs` (false). */
  waitForPreconfirmation(hash: Hex, timeoutMs: number): Promise<boolean>
  /** Executes a block made elsewhere (`--import`) on the head and seals it if its roots match; else it throws. */
  importBlock(block: Block): Promise<SealedBlock>
  /** Starts the clocks (interval mining); again after `stop`, it goes on with the block being built. */
  start(options: { blockTime: number; flashblockInterval: number }): void
  stop(): Promise<void>
  /**
   * Runs `work` on the writer's queue, between flashblocks and seals: what reads the head's state trie, which a seal
   * updates in place, must not interleave with one. editPending and restart run only inside it.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>
  /** The block being built: its timestamp and its pre-confirmed transactions in order; undefined when none is. */
  building(): { timestamp: bigint; transactions: PoolTransaction[] } | undefined
  /** The plan or the clock changed: a pending block not started yet is computed again. */
  replan(): void
  /**
   * Prepares a state edit of the block being built, on top of what it pre-confirmed (the head takes it apart): the
   * edit reads the pending state now, before the head takes it; `apply` publishes its writes (`writes`) after.
   */
  editPending(edit: StateEdit): { writes: StateDiff | undefined; apply(): void }
  /**
   * A replica's step (docs/scaling-out.md): a flashblock another node built, run as it was built there. With `env`,
   * it is the first of a block on the head, begun with that environment; its transactions run in order; it is
   * published; with `last`, the block is sealed after it. Returns the hash it was published or sealed with, for the
   * replica to compare with the one it was sent, or why it does not follow from this chain.
   */
  follow(flashblock: FollowedFlashblock): Promise<{ hash: Hex } | { refused: string }>
  /** Drops the block being built, after the head changed under it; with `resume`, builds it again from those. */
  restart(resume?: { timestamp: bigint; transactions: PoolTransaction[] }): Promise<void>
}

/** A flashblock as a replica runs it (Producer.follow). */
export type FollowedFlashblock = { env: StatedEnv | undefined; entries: PoolTransaction[]; last: boolean }

export function createProducer(host: ProducerHost): Producer {
  const { vm, stateManager, history, trie, pool } = host
  const lookahead = createSystemWorkLookahead()
  const sealLog = createSealLog(host.log)
  let building: Building | undefined
  // Computed on first use: before an import, the head's successor may not be a valid block of the chain yet.
  let published: PendingSnapshot | undefined
  let sealing = false
  let queue: Promise<unknown> = Promise.resolve()
  const waiters = createPreconfirmationWaiters()
  let storageRoots = new Map<Hex, Uint8Array>()
  /** What publishing a flashblock takes per transaction it adds, and a seal per transaction of its block (costs.ts). */
  const [publishCost, sealCost] = [createCostEstimate(), createCostEstimate()]

  const idleCommon = vm.common.copy()

  /** The pending block before its first flashblock (see idleHeader). */
  function idlePending(): PendingSnapshot {
    const head = host.head()
    const env = plannedEnv(head)
    setHardforkFor(idleCommon, env)
    const header = idleHeader(head, env, idleCommon)
    return {
      env,
      flashblockIndex: -1,
      header,
      hash: bytesToHex(header.hash()) as Hex,
      transactions: [],
      senders: [],
      receipts: [],
      state: history.at(head.number),
    }
  }

  /** State roots: exact at the seal (the trie moves to the new head), previewed mid-block for old receipts. */
  stateManager.computeStateRoot = async (writes) => {
    const diff = createStateDiff()
    for (const segment of building?.segments ?? []) mergeDiff(diff, segment)
    mergeDiff(diff, writes)
    const state = createOverlay(writes, stateManager.base)
    const roots = sealing ? await trie.apply(diff, state) : await trie.preview(diff, state)
    if (sealing) storageRoots = roots.storageRoots
    return roots.root
  }

  /** The timestamp set for the block after `head`: evm_setNextBlockTimestamp's, else the plan's interval's. */
  const plannedTimestamp = (head: SealedBlock) => host.clock.next ?? host.plan.timestampAfter(head.block.header.timestamp)

  /** The environment of the block after `head`, as the clock and the plan make it. */
  function plannedEnv(head: SealedBlock, timestamp = plannedTimestamp(head)): BlockEnv {
    return host.plan.apply(withTimestamp(nextEnv(head.block, host.common, host.clock.now(), host.blockGasLimit()), head, timestamp))
  }

  function serially<T>(work: () => Promise<T>): Promise<T> {
    const result = queue.then(work)
    queue = result.catch(() => {})
    return result
  }

  const flashblockClock = createFlashblockClock({
    serially,
    begin: async () => building ?? (await startBlock()),
    include: async (until, sealing) => {
      const block = building ?? (await startBlock())
      return includePooled(host, block, sealing ? sealBound(block, until) : until, publishCost.perTransaction)
    },
    preconfirm: (until) => preconfirm(false, until),
    async seal(until) {
      await seal(undefined, until)
      await startBlock()
    },
    log: host.log,
  })

  /**
   * `announce`: publish the block's first flashblock (the system calls), as every block but a bulk-mined empty one
   * does. `followed`: the environment another node began the block with (follow).
   */
  async function startBlock(timestamp?: bigint, announce = true, followed?: BlockEnv): Promise<Building> {
    const head = host.head()
    const given = followed?.timestamp ?? timestamp ?? plannedTimestamp(head)
    const env = followed ?? plannedEnv(head, given)
    // A block stamped ahead of the clock (a timestamp it was given, or its parent's plus one) moves the clock to it:
    // time added later (evm_increaseTime) then counts from the latest block, and pending shows what the next block
    // takes, as on Hardhat. anvil lets blocks share a second, so its clock never falls behind the latest block.
    if ((given !== undefined && env.timestamp === given) || Number(env.timestamp) * 1000 > host.clock.now()) host.clock.used(env.timestamp)
    host.plan.used()
    setHardforkFor(vm.common, env)
    stateManager.reset(history.at(head.number))
    // A followed block's deposits come in its first flashblock, as the sequencer made them.
    building = await openBlock({ ...host, record: host.streaming(), opStack: followed ? undefined : host.opStack }, head.block, env, lookahead)
    if (announce) await publish(building)
    return building
  }

  /**
   * Publishes the block as it stands as the next flashblock. Its header is previewed first, as Base's builder
   * computes `diff.block_hash` before it sends a flashblock: a receipt is never visible without its block hash. A
   * flashblock that added nothing keeps the header of the one before.
   *
   * Publishing streams the flashblock too, so that no path (the block rebuilt after evm_revert, a listener that
   * throws) pre-confirms transactions a stream reader never sees. `held`: the seal's own flashblock, which the seal
   * streams once the sealed block's roots are known. `sealedAs`: the header of the block just built, which sealAtOnce
   * publishes with instead of previewing it.
   */
  async function publish(block: Building, held = false, sealedAs?: Preview): Promise<PendingSnapshot> {
    // A seal that failed after its flashblock went out left it unstreamed: it goes first, with the roots it previewed.
    if (block.held) stream(block)
    block.held = held
    const diff = stateManager.publish()
    if (!isEmptyDiff(diff)) block.segments.push(diff)
    if (sealedAs !== undefined) block.preview = sealedAs
    else if (block.preview === undefined || !isEmptyDiff(diff) || block.transactions.length > block.announced)
      block.preview = await previewRoots(block, host)
    block.newest = { first: block.announced, diff, accesses: block.accesses }
    block.accesses = new FlashblockAccesses()
    block.flashblockIndex++
    published = {
      env: block.env,
      flashblockIndex: block.flashblockIndex,
      header: block.preview.header,
      hash: block.preview.hash,
      transactions: block.transactions.slice(),
      senders: block.senders.slice(),
      receipts: block.receipts.slice(),
      state: stateManager.base,
    }
    block.byHash.set(published.hash, published)
    if (!held) stream(block)
    const first = block.announced
    block.announced = block.transactions.length
    for (let i = first; i < block.entries.length; i++) pool.remove(block.entries[i]!.hash)
    host.published(published, first)
    waiters.preconfirmed(block.transactions.slice(first))
    return published
  }

  /** `last`: the flashblock that ends the block, which the stream gets once the block is sealed. */
  async function preconfirm(last = false, until?: number): Promise<PendingSnapshot> {
    const block = building ?? (await startBlock())
    await includePooled(host, block, until)
    const added = block.transactions.length - block.announced
    const started = performance.now()
    // The preview grows the tries with the flashblock, so the seal writes only what its last flashblock added (a
    // seal that writes them all holds the writer for as long again).
    const snapshot = await publish(block, last)
    publishCost.observe(performance.now() - started, added)
    return snapshot
  }

  /** Hands the newest flashblock to the stream, with the header it was published with. */
  function stream(block: Building): void {
    if (!host.streaming()) return
    host.flashblock(flashblockOf(block, rootsOf(block.preview!.header, block.preview!.hash)))
  }

  async function seal(timestamp?: bigint, until?: number): Promise<SealedBlock> {
    const block = building ?? (await startBlock(timestamp))
    await preconfirm(true, until)
    // The flashblock just published is visible: let waiting requests see it before the roots are computed.
    await yieldToEventLoop()
    return sealPublished(block)
  }

  /** Seals the block as its last flashblock, published and held, left it, and streams that flashblock. */
  async function sealPublished(block: Building): Promise<SealedBlock> {
    const started = performance.now()
    const built = await build(block, block.newest.accesses)
    await yieldToEventLoop()
    const remainder = stateManager.publish()
    const before = history.at(block.env.number - 1n)
    const diff = sealedWrites([...block.segments, remainder], before, createOverlay(remainder, stateManager.base), storageRoots)
    const sealed = commit(built, block.senders, block.receipts, diff)
    building = undefined
    published = idlePending()
    if (host.streaming()) host.flashblock(flashblockOf(block, rootsOf(built.header, sealed.hash), true))
    const took = performance.now() - started
    sealCost.observe(took, sealed.receipts.length)
    sealLog.sealed(sealed.number, sealed.receipts.length, sealed.hash, took)
    return sealed
  }

  /** The last flashblock's inclusion leaves room for sealing too: its flashblock goes to the stream once the block is sealed. */
  const sealBound = (block: Building, until: number) => until - block.transactions.length * sealCost.perTransaction

  /** The sealed block, its state root computed by moving the trie to it (see computeStateRoot). */
  async function build(block: Building, accesses: FlashblockAccesses): Promise<Block> {
    sealing = true
    try {
      return await buildBlockOf(host, block, accesses)
    } finally {
      sealing = false
    }
  }

  /**
   * A block executed and sealed in one go, when no one can see it being built: no block was started and the stream
   * has no reader (auto mining, evm_mine, anvil_mine). Its roots are computed once, by the seal, and not for each
   * flashblock too, which is most of what a block of one transaction costs. What it includes is published as one
   * flashblock with the sealed header, before the seal, so its pre-confirmations still come before the block.
   * anvil_mine's thousands of empty blocks take this way (docs/chain.md#mining-many-blocks).
   */
  async function sealAtOnce(timestamp?: bigint): Promise<SealedBlock> {
    const started = performance.now()
    const block = await startBlock(timestamp, false)
    await includePooled(host, block)
    const built = await build(block, block.accesses)
    if (block.transactions.length > 0) await publish(block, false, { header: built.header, hash: bytesToHex(built.hash()) as Hex })
    const parts = [...block.segments, stateManager.publish()]
    const diff = sealedWrites(parts, history.at(block.env.number - 1n), stateManager.base, storageRoots)
    const sealed = commit(built, block.senders, block.receipts, diff)
    building = undefined
    sealLog.sealed(sealed.number, sealed.receipts.length, sealed.hash, performance.now() - started)
    return sealed
  }

  function commit(built: Block, senders: Hex[], receipts: Receipt[], diff: StateDiff): SealedBlock {
    const sealed: SealedBlock = { block: built, hash: bytesToHex(built.hash()) as Hex, number: built.header.number, senders, receipts }
    host.pipeline.seal(sealed, diff)
    return sealed
  }

  return {
    pending() {
      // Until a block starts (manual mining), the pending environment follows the clock, a second at a time.
      const head = host.head()
      const planned = plannedTimestamp(head)
      const stale =
        published === undefined ||
        (building === undefined &&
          (published.env.number !== head.number + 1n ||
            (planned === undefined ? published.env.timestamp < BigInt(Math.floor(host.clock.now() / 1000)) : published.env.timestamp !== planned)))
      if (stale) published = idlePending()
      return published!
    },
    preconfirm: (until) => serially(() => preconfirm(false, until)),
    importBlock: (block) =>
      serially(async () => {
        const { senders, receipts, diff } = await executeBlock(block, host.head(), host)
        return commit(block, senders, receipts, diff)
      }),
    seal: (options = {}) => serially(() => (building === undefined && !host.streaming() ? sealAtOnce : seal)(options.timestamp)),
    sealBlocks: (count, stamps) =>
      sealBlocks(count, stamps, {
        serially,
        // A block the clock started, or one the stream must show, goes the usual way.
        sealOne: (timestamp) => (building === undefined && !host.streaming() ? sealAtOnce : seal)(timestamp),
        sliced: () => void (published = idlePending()),
      }),

    pendingByHash(hash) {
      const key = hash.toLowerCase() as Hex
      return building?.byHash.get(key) ?? (published?.hash === key ? published : undefined)
    },

    waitForPreconfirmation(hash, timeoutMs) {
      if (published !== undefined && pendingIndexOf(published, hash) !== undefined) return Promise.resolve(true)
      return waiters.wait(hash, timeoutMs)
    },

    start: (options) => flashblockClock.start(options),

    async stop() {
      flashblockClock.stop()
      await queue
      sealLog.flush()
    },

    exclusive: serially,

    building: () => (building === undefined ? undefined : { timestamp: building.env.timestamp, transactions: building.entries.slice() }),

    replan() {
      if (building === undefined) published = idlePending()
    },

    editPending(edit) {
      // The idle pending block reads the head's state, which takes the edit: only its snapshot is renewed.
      if (building === undefined) return { writes: undefined, apply: () => void (published = idlePending()) }
      // Read now: the pending state reads the head's through where the block wrote nothing, and once the head has
      // taken the edit, an edit that adds to a value (anvil_addBalance) would add twice.
      const diff = edit(stateManager.base)
      const block = building
      const apply = () => {
        stateManager.publishDiff(diff)
        block.segments.push(diff)
        published = { ...published!, state: stateManager.base }
      }
      return { writes: diff, apply }
    },

    follow: ({ env, entries, last }) =>
      serially(async () => {
        const head = host.head()
        if (env !== undefined && (env.number !== head.number + 1n || env.parentHash !== head.hash))
          return { refused: `block ${env.number} is built on ${env.parentHash}, not on block ${head.number} ${head.hash}` }
        const block = env === undefined ? building : await startBlock(undefined, false, followedEnv(head.block, host.common, env))
        if (block === undefined) return { refused: 'no block is being built' }
        for (const entry of entries) {
          if (!(await includeTransaction(host, block, entry))) return { refused: `transaction ${entry.hash} did not run` }
        }
        const snapshot = await publish(block, last)
        return { hash: last ? (await sealPublished(block)).hash : snapshot.hash }
      }),

    async restart(resume) {
      building = undefined
      published = undefined
      stateManager.reset(history.at(host.head().number))
      if (resume === undefined) return
      // The block opens again with its deposits (opstack/deposits.ts), then the rest runs as before.
      const rest = host.opStack?.resume(resume.transactions) ?? resume.transactions
      const block = await startBlock(resume.timestamp)
      for (const entry of rest) await includeTransaction(host, block, entry)
      await publish(block)
    },
  }
}
