import { createBlockHeader, genRequestsRoot } from '@ethereumjs/block'
import { Blob4844Tx, createMinimal4844TxFromNetworkWrapper } from '@ethereumjs/tx'
import { encodeReceipt, runBlock, runTx } from '@ethereumjs/vm'
import { KECCAK256_RLP, bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util'
import { sha256 } from '@noble/hashes/sha2.js'

import { headerEnv, nextEnv } from '../blocks/env.ts'
import { pendingIndexOf } from '../blocks/types.ts'
import { createEnvBlock, setHardforkFor } from '../execution/executor.ts'
import { yieldToEventLoop } from '../../runtime/eventLoop.ts'
import { builderHeaderData, builderRecord, replaceRootTries } from '../ethereumjs/blockBuilder.ts'
import { envHeaderData, startBuilder } from './startBuilder.ts'
import { createOrderedTrie } from './orderedTrie.ts'
import { toReceipt } from './receipts.ts'
import { createOverlay } from '../state/overlay.ts'
import { withStorageRoots } from '../state/trie.ts'
import { createStateDiff, isEmptyDiff, mergeDiff } from '../state/types.ts'

import type { Block, HeaderData } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { BlockBuilder, RunBlockResult, RunTxResult, VM } from '@ethereumjs/vm'
import type { BuilderRecord } from '../ethereumjs/blockBuilder.ts'
import type { PendingSnapshot, SealedBlock } from '../blocks/types.ts'
import type { ChainClock } from './clock.ts'
import type { SealPipeline } from './sealPipeline.ts'
import type { BlockPlan } from './plan.ts'
import type { Pool, PoolTransaction } from './txpool.ts'
import type { StateEdit } from '../state/edits.ts'
import type { StateHistory } from '../state/history.ts'
import type { FlatStateManager } from '../state/stateManager.ts'
import type { StateTrie } from '../state/trie.ts'
import type { StateDiff } from '../state/types.ts'
import type { Hex } from '../../hex.ts'
import type { BlockEnv, Flashblock, Receipt } from '../types.ts'

export type ProducerHost = {
  common: Common
  vm: VM
  stateManager: FlatStateManager
  history: StateHistory
  trie: StateTrie
  pool: Pool
  blockGasLimit: () => bigint
  clock: ChainClock
  plan: BlockPlan
  head: () => SealedBlock
  /** Where each sealed block goes, with its state writes: the history, the store, the sealed blocks, the events. */
  pipeline: SealPipeline
  /** A pool transaction was found invalid when its turn came. */
  dropTransaction: (entry: PoolTransaction, reason: string) => void
  /** A flashblock was published; its transactions from `first` on are new. */
  published: (pending: PendingSnapshot, first: number) => void
  /**
   * Whether the flashblocks stream has listeners. Only then is each flashblock's block previewed (roots and hash
   * as if sealed after it), which costs a state-root preview per flashblock beside the growing tries.
   */
  streaming: () => boolean
  /** A flashblock for the stream, with its roots: previewed mid-block, the sealed block's for the last one. */
  flashblock: (flashblock: Flashblock) => void
  log: (line: string) => void
}

type Building = {
  builder: BlockBuilder
  /** The builder's own lists, which build() turns into the roots, bloom and requests of the sealed block. */
  sealed: BuilderRecord
  /** The header-only block that carries the environment into runTx. */
  envBlock: Block
  env: BlockEnv
  transactions: TypedTransaction[]
  senders: Hex[]
  receipts: Receipt[]
  /** The pool entries the transactions came from, to build the block again after a revert. */
  entries: PoolTransaction[]
  segments: StateDiff[]
  flashblockIndex: number
  /** How many transactions the flashblocks published so far hold. */
  announced: number
  /** The newest flashblock: where its transactions start, and its own state writes. */
  newest: { first: number; diff: StateDiff }
  /** The header the block would seal with as of the newest flashblock, and its hash. */
  preview: Preview | undefined
  /** The pending block as of each of its flashblocks, by that flashblock's block hash (eth_getBlockByHash). */
  byHash: Map<Hex, PendingSnapshot>
  /** The newest flashblock is the seal's, held back from the stream until the sealed block's roots are known. */
  held: boolean
}

type Preview = { header: Block['header']; hash: Hex }

/** What the stream says of the block as of a flashblock: its roots and hash, as if it were sealed then. */
type FlashblockRoots = Pick<Flashblock, 'stateRoot' | 'receiptsRoot' | 'logsBloom' | 'gasUsed' | 'blockHash' | 'withdrawalsRoot' | 'blobGasUsed'>

/** Failures that say "not in this block", not "never": the transaction stays in the pool. */
const retryLater = [/higher gas limit than the remaining gas in the block/, /is less than the block's baseFeePerGas/, /blob gas limit reached/]

/**
 * The single writer. It executes pool transactions on top of the block being built, publishes the result as a
 * flashblock, and seals blocks. Every entry point runs on one queue, so the clock and admin calls never interleave.
 */
export type Producer = {
  /** The pending block as of the newest flashblock (or the idle N+1 view when nothing is being built). */
  pending(): PendingSnapshot
  /** Executes what the pool holds and publishes one flashblock. */
  preconfirm(): Promise<PendingSnapshot>
  /** Pre-confirms what is pending, then seals the block. */
  seal(options?: { timestamp?: bigint }): Promise<SealedBlock>
  /**
   * Seals `count` blocks, the first with what is pending, on the writer's queue in slices of about SLICE_MS: between
   * two slices other requests are answered and other writes take their turn. A block with nothing to include is
   * sealed without a flashblock (see sealEmpty). Resolves with the last block.
   */
  sealBlocks(count: bigint, stamps: BlockStamps): Promise<SealedBlock>
  /**
   * The pending block as of one of the flashblocks of the block being built, or the idle pending block, by the
   * hash it carries; undefined for any other hash.
   */
  pendingByHash(hash: Hex): PendingSnapshot | undefined
  /** Resolves once the transaction is pre-confirmed (true), or after `timeoutMs` (false). */
  waitForPreconfirmation(hash: Hex, timeoutMs: number): Promise<boolean>
  /**
   * Executes a block produced elsewhere (`--import`) on the head and seals it as it is, if its state root,
   * receipts root, bloom and gas used all match what execution gives. Otherwise it throws, naming the block.
   */
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
   * edit reads the pending state now, before the head takes it, and what it returns publishes the writes after.
   */
  editPending(edit: StateEdit): () => void
  /** Drops the block being built, after the head changed under it; with `resume`, builds it again from those. */
  restart(resume?: { timestamp: bigint; transactions: PoolTransaction[] }): Promise<void>
}

/**
 * The timestamps of blocks sealed one after another: the first at `timestamp` (by the clock when undefined), and
 * each after it `interval` seconds after the one before (by the clock when undefined or 0).
 */
export type BlockStamps = { timestamp?: bigint | undefined; interval?: bigint | undefined }

/** The most ms before a flashblock is due that the clock starts executing its transactions. */
const maxLead = 50

/** How long sealBlocks holds the writer and the event loop before it lets other requests through. */
const SLICE_MS = 20

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve())

export function createProducer(host: ProducerHost): Producer {
  const { vm, stateManager, history, trie, pool } = host
  let building: Building | undefined
  // Computed on first use: before an import, the head's successor may not be a valid block of the chain yet.
  let published: PendingSnapshot | undefined
  let sealing = false
  let queue: Promise<unknown> = Promise.resolve()
  let timer: NodeJS.Timeout | undefined
  /** Stops the flashblock clock start() set going, if any. */
  let stopClock = () => {}
  const waiters = new Map<Hex, Set<() => void>>()
  let storageRoots = new Map<Hex, Uint8Array>()

  const idleCommon = vm.common.copy()

  /**
   * The pending block before its first flashblock: nothing has run on the head's state yet, so its header has the
   * head's state root and empty tries.
   */
  function idlePending(): PendingSnapshot {
    const head = host.head()
    const env = plannedEnv(head)
    setHardforkFor(idleCommon, env)
    const header = createBlockHeader(
      {
        ...envHeaderData(env),
        parentHash: head.block.hash(),
        stateRoot: head.block.header.stateRoot,
        withdrawalsRoot: idleCommon.isActivatedEIP(4895) ? KECCAK256_RLP : undefined,
        blobGasUsed: idleCommon.isActivatedEIP(4844) ? 0n : undefined,
        requestsHash: idleCommon.isActivatedEIP(7685) ? genRequestsRoot([], sha256) : undefined,
      },
      { common: idleCommon, skipConsensusFormatValidation: true },
    )
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

  /** `announce`: publish the block's first flashblock (the system calls), as every block but a bulk-mined empty one does. */
  async function startBlock(timestamp?: bigint, announce = true): Promise<Building> {
    const head = host.head()
    const given = timestamp ?? plannedTimestamp(head)
    const env = plannedEnv(head, given)
    // A block stamped ahead of the clock (a timestamp it was given, or its parent's plus one) moves the clock to it:
    // time added later (evm_increaseTime) then counts from the latest block, and pending shows what the next block
    // takes, as on Hardhat. anvil lets blocks share a second, so its clock never falls behind the latest block.
    if ((given !== undefined && env.timestamp === given) || Number(env.timestamp) * 1000 > host.clock.now()) host.clock.used(env.timestamp)
    host.plan.used()
    setHardforkFor(vm.common, env)
    stateManager.reset(history.at(head.number))
    const builder = await startBuilder(vm, head.block, env)
    // The builder's own transaction and receipt tries, grown as the block is (same roots): a root mid-block and the
    // seal's write only what was added since the last one.
    const sealed = builderRecord(builder)
    const transactionsTrie = createOrderedTrie((i) => sealed.transactions[i]!.serialize(), vm.common)
    const receiptTrie = createOrderedTrie((i) => encodeReceipt(sealed.results[i]!.receipt, sealed.transactions[i]!.type), vm.common)
    replaceRootTries(builder, {
      transactionsTrie: () => transactionsTrie.rootOf(sealed.transactions.length),
      receiptTrie: () => receiptTrie.rootOf(sealed.results.length),
    })
    // Flashblock 0 holds only the system calls (EIP-4788, EIP-2935) that buildBlock ran.
    building = {
      builder,
      sealed,
      envBlock: createEnvBlock(env, vm.common, env.baseFeePerGas),
      env,
      transactions: [],
      senders: [],
      receipts: [],
      entries: [],
      segments: [],
      flashblockIndex: -1,
      announced: 0,
      newest: { first: 0, diff: createStateDiff() },
      preview: undefined,
      byHash: new Map(),
      held: false,
    }
    if (!announce) return building
    await publish(building)
    return building
  }

  /**
   * Publishes the block as it stands as the next flashblock. Its header is previewed first, as Base's builder
   * computes `diff.block_hash` before it sends a flashblock: a receipt is never visible without its block hash. A
   * flashblock that added nothing keeps the header of the one before.
   *
   * Publishing streams the flashblock too, so that no path (the block rebuilt after evm_revert, a listener that
   * throws) pre-confirms transactions a stream reader never sees. `held`: the seal's own flashblock, which the seal
   * streams once the sealed block's roots are known.
   */
  async function publish(block: Building, held = false): Promise<PendingSnapshot> {
    // A seal that failed after its flashblock went out left it unstreamed: it goes first, with the roots it previewed.
    if (block.held) stream(block)
    block.held = held
    const diff = stateManager.publish()
    if (!isEmptyDiff(diff)) block.segments.push(diff)
    if (block.preview === undefined || !isEmptyDiff(diff) || block.transactions.length > block.announced) block.preview = await previewRoots(block)
    block.newest = { first: block.announced, diff }
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
    for (const tx of block.transactions.slice(first)) {
      const hash = bytesToHex(tx.hash()) as Hex
      const resolvers = waiters.get(hash)
      if (resolvers === undefined) continue
      waiters.delete(hash)
      for (const resolve of resolvers) resolve()
    }
    return published
  }

  /** Runs one pool transaction on the block being built, with the checks BlockBuilder.addTransaction makes. */
  async function execute(block: Building, tx: TypedTransaction, impersonating?: Hex): Promise<RunTxResult> {
    const { sealed, builder } = block
    if (tx.gasLimit > block.env.gasLimit - builder.gasUsed) throw new Error('tx has a higher gas limit than the remaining gas in the block')
    let blobGas = 0n
    if (tx instanceof Blob4844Tx) {
      blobGas = BigInt(tx.blobVersionedHashes.length) * vm.common.param('blobGasPerBlob')
      if (builder.blobGasUsed + blobGas > vm.common.getBlobGasSchedule().maxBlobGasPerBlock) throw new Error('block blob gas limit reached')
    }
    stateManager.codeHiddenFor = impersonating
    let result: RunTxResult
    try {
      result = await runTx(vm, { tx, block: block.envBlock, blockGasUsed: builder.gasUsed, skipHardForkValidation: true })
    } finally {
      stateManager.codeHiddenFor = undefined
    }
    // Blocks carry blob transactions without their blobs (EIP-4844).
    sealed.add(tx instanceof Blob4844Tx ? createMinimal4844TxFromNetworkWrapper(tx, { common: vm.common }) : tx, result, blobGas)
    return result
  }

  async function include(block: Building, entry: PoolTransaction): Promise<boolean> {
    try {
      const result = await execute(block, entry.tx, entry.impersonated === true ? entry.sender : undefined)
      block.transactions.push(entry.tx)
      block.senders.push(entry.sender)
      block.receipts.push(toReceipt(result, entry.tx, block.env))
      block.entries.push(entry)
      // It leaves the pool when its flashblock goes out (publish): until then it is pending to every reader.
      entry.taken = true
      return true
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      if (!retryLater.some((pattern) => pattern.test(reason))) host.dropTransaction(entry, reason)
      return false
    }
  }

  /** Executes what the pool holds into the block, unpublished: what the next flashblock will show. */
  async function includePooled(block: Building): Promise<void> {
    if (pool.size === 0) return
    // Through the journal: transactions included since the last flashblock have moved their senders' nonces on.
    const stateNonce = (sender: Hex) => stateManager.nonce(sender)
    await pool.select(stateNonce, block.env.baseFeePerGas ?? 0n, (entry) => include(block, entry))
  }

  /** `last`: the flashblock that ends the block, which the stream gets once the block is sealed. */
  async function preconfirm(last = false): Promise<PendingSnapshot> {
    const block = building ?? (await startBlock())
    await includePooled(block)
    // The preview grows the tries with the flashblock, so the seal writes only what its last flashblock added (a
    // seal that writes them all holds the writer for as long again).
    return publish(block, last)
  }

  /** Hands the newest flashblock to the stream, with the header it was published with. */
  function stream(block: Building): void {
    if (!host.streaming()) return
    host.flashblock(flashblockOf(block, rootsOf(block.preview!.header, block.preview!.hash)))
  }

  /**
   * The roots and hash the block would have if it were sealed now, before the end-of-block system calls
   * (EIP-7002, EIP-7251): on a chain where nobody queues withdrawal or consolidation requests, those neither add
   * requests nor change state, and the preview is what the seal gives.
   */
  async function previewRoots(block: Building): Promise<Preview> {
    const { builder } = block
    const diff = createStateDiff()
    for (const segment of block.segments) mergeDiff(diff, segment)
    const stateRoot = (await trie.preview(diff, stateManager.base)).root
    const receiptsRoot = await builder.receiptTrie()
    const logsBloom = new Uint8Array(256)
    for (const receipt of block.receipts) {
      const bloom = hexToBytes(receipt.logsBloom)
      for (let i = 0; i < 256; i++) logsBloom[i]! |= bloom[i]!
    }
    const common = vm.common
    const headerData: HeaderData = {
      ...builderHeaderData(builder),
      stateRoot,
      transactionsTrie: await builder.transactionsTrie(),
      receiptTrie: receiptsRoot,
      logsBloom,
      gasUsed: builder.gasUsed,
      withdrawalsRoot: common.isActivatedEIP(4895) ? KECCAK256_RLP : undefined,
      blobGasUsed: common.isActivatedEIP(4844) ? builder.blobGasUsed : undefined,
      requestsHash: common.isActivatedEIP(7685) ? genRequestsRoot([], sha256) : undefined,
    }
    const header = createBlockHeader(headerData, { common, skipConsensusFormatValidation: true })
    return { header, hash: bytesToHex(header.hash()) as Hex }
  }

  function flashblockOf(block: Building, roots: FlashblockRoots): Flashblock {
    const { first, diff } = block.newest
    const transactions: Flashblock['transactions'] = []
    for (let i = first; i < block.transactions.length; i++) {
      // The block's own encoding: a blob transaction without its blobs (EIP-4844).
      const tx = block.sealed.transactions[i]!
      transactions.push({ raw: bytesToHex(tx.serialize()) as Hex, hash: bytesToHex(tx.hash()) as Hex, type: tx.type, receipt: block.receipts[i]! })
    }
    const given = builderHeaderData(block.builder).extraData
    return {
      number: block.env.number,
      index: block.flashblockIndex,
      env: block.env,
      extraData: (given === undefined ? '0x' : bytesToHex(given as Uint8Array)) as Hex,
      transactions,
      balances: [...diff.accounts].map(([address, account]) => [address, account?.balance ?? 0n]),
      ...roots,
    }
  }

  async function seal(timestamp?: bigint): Promise<SealedBlock> {
    const block = building ?? (await startBlock(timestamp))
    await preconfirm(true)
    // The flashblock just published is visible: let waiting requests see it before the roots are computed.
    await yieldToEventLoop()
    const started = performance.now()
    const built = await build(block)
    await yieldToEventLoop()
    const remainder = stateManager.publish()
    const diff = createStateDiff()
    for (const segment of block.segments) mergeDiff(diff, segment)
    mergeDiff(diff, remainder)
    withStorageRoots(diff, createOverlay(remainder, stateManager.base), storageRoots)
    const sealed = commit(built, block.senders, block.receipts, diff)
    building = undefined
    published = idlePending()
    if (host.streaming()) host.flashblock(flashblockOf(block, rootsOf(built.header, sealed.hash)))
    host.log(`sealed block ${sealed.number} (${sealed.receipts.length} txs) ${sealed.hash} in ${(performance.now() - started).toFixed(0)} ms`)
    return sealed
  }

  /** The sealed block, its state root computed by moving the trie to it (see computeStateRoot). */
  async function build(block: Building): Promise<Block> {
    sealing = true
    try {
      return (await block.builder.build()).block
    } finally {
      sealing = false
    }
  }

  /**
   * An empty block sealed at once, without a flashblock or a preview of its roots: nothing can be pre-confirmed in a
   * block that is started and sealed in one turn, and its roots are computed once, by the seal. This is what makes
   * anvil_mine's thousands of blocks cheap (docs/chain.md#mining-many-blocks).
   */
  async function sealEmpty(timestamp?: bigint): Promise<SealedBlock> {
    const built = await build(await startBlock(timestamp, false))
    const diff = createStateDiff()
    mergeDiff(diff, stateManager.publish())
    withStorageRoots(diff, stateManager.base, storageRoots)
    const sealed = commit(built, [], [], diff)
    building = undefined
    host.log(`sealed block ${sealed.number} (0 txs) ${sealed.hash}`)
    return sealed
  }

  async function sealBlocks(count: bigint, { timestamp, interval = 0n }: BlockStamps): Promise<SealedBlock> {
    let sealed: SealedBlock | undefined
    let mined = 0n
    const next = () => (mined === 0n ? timestamp : interval > 0n ? sealed!.block.header.timestamp + interval : undefined)
    while (mined < count) {
      sealed = await serially(async () => {
        const started = performance.now()
        let last: SealedBlock | undefined
        do {
          // A block with transactions, one the clock started, or one the stream must show goes the usual way.
          const empty = mined > 0n && building === undefined && pool.size === 0 && !host.streaming()
          last = empty ? await sealEmpty(next()) : await seal(next())
          sealed = last
          mined++
        } while (mined < count && performance.now() - started < SLICE_MS)
        published = idlePending()
        return last
      })
      await yieldToEventLoop()
    }
    return sealed!
  }

  function commit(built: Block, senders: Hex[], receipts: Receipt[], diff: StateDiff): SealedBlock {
    const sealed: SealedBlock = { block: built, hash: bytesToHex(built.hash()) as Hex, number: built.header.number, senders, receipts }
    host.pipeline.seal(sealed, diff)
    return sealed
  }

  async function importBlock(block: Block): Promise<SealedBlock> {
    const head = host.head()
    const number = block.header.number
    if (number !== head.number + 1n || !equalsBytes(block.header.parentHash, head.block.hash())) {
      throw new Error(`block ${number}: parent ${bytesToHex(block.header.parentHash)} is not the head (block ${head.number}, ${head.hash})`)
    }
    const env = headerEnv(block)
    setHardforkFor(vm.common, env)
    stateManager.reset(history.at(head.number))
    let result: RunBlockResult
    try {
      // Seals of imported proof-of-work blocks are not checked: test chains carry fake ones.
      result = await runBlock(vm, { block, skipBlockValidation: true, skipHeaderValidation: true, skipHardForkValidation: true })
    } catch (error) {
      throw new Error(
        `block ${number} (${bytesToHex(block.hash())}) does not execute to its header: ${error instanceof Error ? error.message.replace(/ \(.*$/s, '') : error}`,
      )
    }
    const diff = stateManager.publish()
    const roots = await trie.apply(diff, stateManager.base)
    withStorageRoots(diff, stateManager.base, roots.storageRoots)
    const senders = block.transactions.map((tx) => tx.getSenderAddress().toString() as Hex)
    const receipts = result.results.map((txResult, i) => toReceipt(txResult, block.transactions[i]!, env))
    return commit(block, senders, receipts, diff)
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
    preconfirm: () => serially(() => preconfirm()),
    importBlock: (block) => serially(() => importBlock(block)),
    seal: (options = {}) => serially(() => seal(options.timestamp)),
    sealBlocks,

    pendingByHash(hash) {
      const key = hash.toLowerCase() as Hex
      return building?.byHash.get(key) ?? (published?.hash === key ? published : undefined)
    },

    waitForPreconfirmation(hash, timeoutMs) {
      if (published !== undefined && pendingIndexOf(published, hash) !== undefined) return Promise.resolve(true)
      return new Promise((resolve) => {
        let resolvers = waiters.get(hash)
        if (resolvers === undefined) waiters.set(hash, (resolvers = new Set()))
        const done = () => {
          clearTimeout(timeout)
          resolve(true)
        }
        const timeout = setTimeout(() => {
          resolvers.delete(done)
          if (resolvers.size === 0) waiters.delete(hash)
          resolve(false)
        }, timeoutMs)
        resolvers.add(done)
      })
    },

    start({ blockTime, flashblockInterval }) {
      const perBlock = Math.max(1, Math.round(blockTime / flashblockInterval))
      const lead = Math.min(maxLead, Math.floor(flashblockInterval / 4))
      // Turn k starts at origin + k × interval, a fixed schedule: a turn of the event loop that comes late delays
      // one flashblock, not every one after it, and blocks keep their time.
      stopClock()
      const origin = performance.now()
      const clock = { stopped: false }
      let done = 0
      stopClock = () => {
        clock.stopped = true
        clearTimeout(timer)
        timer = undefined
      }
      // A restarted clock (after automine) goes on with the block it left, pre-confirmed transactions and all.
      void serially(async () => building ?? (await startBlock()))
      // Each turn starts `lead` ms before its flashblock is due. What the pool holds then is executed at once, and
      // only what arrives in the last `lead` ms is left for the deadline: a flashblock goes out on time, rather than
      // after executing everything that came in since the last one. The next turn is timed once this one is done,
      // so turns never queue up behind a slow one.
      const next = () => {
        if (clock.stopped) return
        timer = setTimeout(turn, Math.max(0, origin + (done + 1) * flashblockInterval - performance.now()))
      }
      const turn = () => {
        // The newest flashblock whose turn has come: those the loop was too busy to start go out as this one, and a
        // seal passed over is made now.
        const k = Math.max(done + 1, Math.floor((performance.now() - origin) / flashblockInterval))
        const last = Math.floor(k / perBlock) > Math.floor(done / perBlock)
        done = k
        const due = origin + k * flashblockInterval + lead
        void serially(async () => {
          await includePooled(building ?? (await startBlock()))
          await sleep(due - performance.now())
          if (!last) return void (await preconfirm())
          await seal()
          await startBlock()
        })
          .catch((error) => host.log(`${last ? 'block production' : 'flashblock'} failed: ${error instanceof Error ? error.stack : error}`))
          .finally(next)
      }
      next()
    },

    async stop() {
      stopClock()
      await queue
    },

    exclusive: serially,

    building: () => (building === undefined ? undefined : { timestamp: building.env.timestamp, transactions: building.entries.slice() }),

    replan() {
      if (building === undefined) published = idlePending()
    },

    editPending(edit) {
      // The idle pending block reads the head's state, which takes the edit: only its snapshot is renewed.
      if (building === undefined) return () => void (published = idlePending())
      // Read now: the pending state reads the head's through where the block wrote nothing, and once the head has
      // taken the edit, an edit that adds to a value (anvil_addBalance) would add twice.
      const diff = edit(stateManager.base)
      const block = building
      return () => {
        stateManager.publishDiff(diff)
        block.segments.push(diff)
        published = { ...published!, state: stateManager.base }
      }
    },

    async restart(resume) {
      building = undefined
      published = undefined
      stateManager.reset(history.at(host.head().number))
      if (resume === undefined) return
      const block = await startBlock(resume.timestamp)
      for (const entry of resume.transactions) await include(block, entry)
      await publish(block)
    },
  }
}

function rootsOf(header: Block['header'], hash: Hex): FlashblockRoots {
  return {
    stateRoot: bytesToHex(header.stateRoot) as Hex,
    receiptsRoot: bytesToHex(header.receiptTrie) as Hex,
    logsBloom: bytesToHex(header.logsBloom) as Hex,
    gasUsed: header.gasUsed,
    blockHash: hash,
    withdrawalsRoot: header.withdrawalsRoot === undefined ? undefined : (bytesToHex(header.withdrawalsRoot) as Hex),
    blobGasUsed: header.blobGasUsed,
  }
}

/** The environment with the timestamp it was given, if that is after the parent's; as computed otherwise. */
function withTimestamp(env: BlockEnv, parent: SealedBlock, timestamp: bigint | undefined): BlockEnv {
  if (timestamp !== undefined && timestamp > parent.block.header.timestamp) env.timestamp = timestamp
  return env
}
