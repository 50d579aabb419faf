import { Blob4844Tx, createMinimal4844TxFromNetworkWrapper } from '@ethereumjs/tx'
import { buildBlock, encodeReceipt, runBlock, runTx } from '@ethereumjs/vm'
import { bytesToHex, equalsBytes } from '@ethereumjs/util'

import { headerEnv, nextEnv } from '../blocks/env.ts'
import { pendingIndexOf } from '../blocks/types.ts'
import { createEnvBlock, setHardforkFor } from '../execution/executor.ts'
import { yieldToEventLoop } from '../../runtime/eventLoop.ts'
import { builderInternals } from './builderInternals.ts'
import { orderedTrieRoot } from './orderedTrie.ts'
import { toReceipt } from './receipts.ts'
import { createOverlay } from '../state/overlay.ts'
import { createStateDiff, isEmptyDiff, mergeDiff } from '../state/types.ts'

import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { BlockBuilder, RunBlockResult, RunTxResult, VM } from '@ethereumjs/vm'
import type { BuilderInternals } from './builderInternals.ts'
import type { PendingSnapshot, SealedBlock } from '../blocks/types.ts'
import type { ChainClock } from './clock.ts'
import type { Pool, PoolTransaction } from './txpool.ts'
import type { StateHistory } from '../state/history.ts'
import type { FlatStateManager } from '../state/stateManager.ts'
import type { StateTrie } from '../state/trie.ts'
import type { StateDiff, StateReader } from '../state/types.ts'
import type { Hex } from '../../hex.ts'
import type { BlockEnv, Receipt } from '../types.ts'

/** Sealed account records carry their exact storage roots, as the trie computed them. */
function withStorageRoots(diff: StateDiff, after: StateReader, storageRoots: Map<Hex, Uint8Array>) {
  for (const [address, storageRoot] of storageRoots) {
    const account = after.account(address)
    if (account !== undefined) diff.accounts.set(address, { ...account, storageRoot })
  }
}

export type ProducerHost = {
  common: Common
  vm: VM
  stateManager: FlatStateManager
  history: StateHistory
  trie: StateTrie
  pool: Pool
  blockGasLimit: () => bigint
  clock: ChainClock
  head: () => SealedBlock
  /** Persists and indexes a sealed block with its state writes. */
  commitBlock: (sealed: SealedBlock, diff: StateDiff) => void
  /** A pool transaction was found invalid when its turn came. */
  dropTransaction: (entry: PoolTransaction, reason: string) => void
  log: (line: string) => void
}

type Building = {
  builder: BlockBuilder
  /** The builder's own lists, which build() turns into the roots, bloom and requests of the sealed block. */
  sealed: BuilderInternals
  /** The header-only block that carries the environment into runTx. */
  envBlock: Block
  env: BlockEnv
  transactions: TypedTransaction[]
  senders: Hex[]
  receipts: Receipt[]
  segments: StateDiff[]
  flashblockIndex: number
}

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
  /** Resolves once the transaction is pre-confirmed (true), or after `timeoutMs` (false). */
  waitForPreconfirmation(hash: Hex, timeoutMs: number): Promise<boolean>
  /**
   * Executes a block produced elsewhere (`--import`) on the head and seals it as it is, if its state root,
   * receipts root, bloom and gas used all match what execution gives. Otherwise it throws, naming the block.
   */
  importBlock(block: Block): Promise<SealedBlock>
  /**
   * Runs `work` on the writer's queue, between flashblocks and seals: what reads the head's state trie, which a seal
   * updates in place, must not interleave with one.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>
  /** Starts the clocks (interval mining); again after `stop`, it goes on with the block being built. */
  start(options: { blockTime: number; flashblockInterval: number }): void
  stop(): Promise<void>
}

export function createProducer(host: ProducerHost): Producer {
  const { vm, stateManager, history, trie, pool } = host
  let building: Building | undefined
  // Computed on first use: before an import, the head's successor may not be a valid block of the chain yet.
  let published: PendingSnapshot | undefined
  let sealing = false
  let queue: Promise<unknown> = Promise.resolve()
  let timer: NodeJS.Timeout | undefined
  const waiters = new Map<Hex, Set<() => void>>()
  let storageRoots = new Map<Hex, Uint8Array>()

  function idlePending(): PendingSnapshot {
    const head = host.head()
    return {
      env: withTimestamp(nextEnv(head.block, host.common, host.clock.now(), host.blockGasLimit()), head, host.clock.next),
      flashblockIndex: -1,
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

  function serially<T>(work: () => Promise<T>): Promise<T> {
    const result = queue.then(work)
    queue = result.catch(() => {})
    return result
  }

  async function startBlock(timestamp?: bigint): Promise<Building> {
    const head = host.head()
    const given = timestamp ?? host.clock.next
    const env = withTimestamp(nextEnv(head.block, host.common, host.clock.now(), host.blockGasLimit()), head, given)
    if (given !== undefined && env.timestamp === given) host.clock.used(given)
    setHardforkFor(vm.common, env)
    stateManager.reset(history.at(head.number))
    const builder = await buildBlock(vm, {
      parentBlock: head.block,
      headerData: {
        number: env.number,
        timestamp: env.timestamp,
        gasLimit: env.gasLimit,
        baseFeePerGas: env.baseFeePerGas,
        coinbase: env.coinbase,
        mixHash: env.prevRandao,
        difficulty: 0n,
        excessBlobGas: env.excessBlobGas,
        parentBeaconBlockRoot: env.parentBeaconBlockRoot,
      },
      withdrawals: vm.common.isActivatedEIP(4895) ? [] : undefined,
      blockOpts: { putBlockIntoBlockchain: false, skipConsensusFormatValidation: true },
    })
    // The builder's own transaction and receipt tries, written in turns of the event loop (same roots).
    const sealed = builderInternals(builder)
    builder.transactionsTrie = () => orderedTrieRoot(sealed.transactions.length, (i) => sealed.transactions[i]!.serialize(), vm.common)
    builder.receiptTrie = () =>
      orderedTrieRoot(
        sealed.transactionResults.length,
        (i) => encodeReceipt(sealed.transactionResults[i]!.receipt, sealed.transactions[i]!.type),
        vm.common,
      )
    // Flashblock 0 holds only the system calls (EIP-4788, EIP-2935) that buildBlock ran.
    building = {
      builder,
      sealed,
      envBlock: createEnvBlock(env, vm.common, env.baseFeePerGas),
      env,
      transactions: [],
      senders: [],
      receipts: [],
      segments: [],
      flashblockIndex: -1,
    }
    publish(building)
    return building
  }

  function publish(block: Building): PendingSnapshot {
    const diff = stateManager.publish()
    if (!isEmptyDiff(diff)) block.segments.push(diff)
    block.flashblockIndex++
    published = {
      env: block.env,
      flashblockIndex: block.flashblockIndex,
      transactions: block.transactions.slice(),
      senders: block.senders.slice(),
      receipts: block.receipts.slice(),
      state: stateManager.base,
    }
    for (const tx of block.transactions) {
      const hash = bytesToHex(tx.hash()) as Hex
      const resolvers = waiters.get(hash)
      if (resolvers === undefined) continue
      waiters.delete(hash)
      for (const resolve of resolvers) resolve()
    }
    return published
  }

  /** Runs one pool transaction on the block being built, with the checks BlockBuilder.addTransaction makes. */
  async function execute(block: Building, tx: TypedTransaction): Promise<RunTxResult> {
    const { sealed } = block
    if (tx.gasLimit > block.env.gasLimit - sealed.gasUsed) throw new Error('tx has a higher gas limit than the remaining gas in the block')
    let blobGas = 0n
    if (tx instanceof Blob4844Tx) {
      blobGas = BigInt(tx.blobVersionedHashes.length) * vm.common.param('blobGasPerBlob')
      if (sealed.blobGasUsed + blobGas > vm.common.getBlobGasSchedule().maxBlobGasPerBlock) throw new Error('block blob gas limit reached')
    }
    const result = await runTx(vm, { tx, block: block.envBlock, blockGasUsed: sealed.gasUsed, skipHardForkValidation: true })
    // Blocks carry blob transactions without their blobs (EIP-4844).
    sealed.transactions.push(tx instanceof Blob4844Tx ? createMinimal4844TxFromNetworkWrapper(tx, { common: vm.common }) : tx)
    sealed.transactionResults.push(result)
    sealed.gasUsed += result.blockGasSpent
    sealed.blobGasUsed += blobGas
    sealed._minerValue += result.minerValue
    return result
  }

  async function include(block: Building, entry: PoolTransaction): Promise<boolean> {
    try {
      const result = await execute(block, entry.tx)
      block.transactions.push(entry.tx)
      block.senders.push(entry.sender)
      block.receipts.push(toReceipt(result, entry.tx, block.env))
      pool.remove(entry.hash)
      return true
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      if (!retryLater.some((pattern) => pattern.test(reason))) host.dropTransaction(entry, reason)
      return false
    }
  }

  async function preconfirm(): Promise<PendingSnapshot> {
    const block = building ?? (await startBlock())
    if (pool.size > 0) {
      // The journal is empty between flashblocks, so the base holds every nonce the block has used so far.
      const stateNonce = (sender: Hex) => stateManager.base.account(sender)?.nonce ?? 0n
      await pool.select(stateNonce, block.env.baseFeePerGas ?? 0n, (entry) => include(block, entry))
    }
    return publish(block)
  }

  async function seal(timestamp?: bigint): Promise<SealedBlock> {
    const block = building ?? (await startBlock(timestamp))
    await preconfirm()
    // The flashblock just published is visible: let waiting requests see it before the roots are computed.
    await yieldToEventLoop()
    const started = performance.now()
    sealing = true
    let built: Block
    try {
      built = (await block.builder.build()).block
    } finally {
      sealing = false
    }
    await yieldToEventLoop()
    const remainder = stateManager.publish()
    const diff = createStateDiff()
    for (const segment of block.segments) mergeDiff(diff, segment)
    mergeDiff(diff, remainder)
    withStorageRoots(diff, createOverlay(remainder, stateManager.base), storageRoots)
    const sealed = commit(built, block.senders, block.receipts, diff)
    building = undefined
    published = idlePending()
    host.log(`sealed block ${sealed.number} (${sealed.receipts.length} txs) ${sealed.hash} in ${(performance.now() - started).toFixed(0)} ms`)
    return sealed
  }

  function commit(built: Block, senders: Hex[], receipts: Receipt[], diff: StateDiff): SealedBlock {
    const sealed: SealedBlock = { block: built, hash: bytesToHex(built.hash()) as Hex, number: built.header.number, senders, receipts }
    host.commitBlock(sealed, diff)
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
      const stale =
        published === undefined ||
        (building === undefined &&
          (published.env.number !== host.head().number + 1n ||
            published.env.timestamp < BigInt(Math.floor(host.clock.now() / 1000)) ||
            (host.clock.next !== undefined && published.env.timestamp !== host.clock.next)))
      if (stale) published = idlePending()
      return published!
    },
    preconfirm: () => serially(preconfirm),
    importBlock: (block) => serially(() => importBlock(block)),
    seal: (options = {}) => serially(() => seal(options.timestamp)),
    exclusive: (work) => serially(work),

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
      let tick = 0
      // A restarted clock (after automine) goes on with the block it left, pre-confirmed transactions and all.
      void serially(async () => building ?? (await startBlock()))
      timer = setInterval(() => {
        tick++
        if (tick >= perBlock) {
          tick = 0
          void serially(async () => {
            await seal()
            await startBlock()
          }).catch((error) => host.log(`block production failed: ${error instanceof Error ? error.stack : error}`))
        } else {
          void serially(preconfirm).catch((error) => host.log(`flashblock failed: ${error instanceof Error ? error.stack : error}`))
        }
      }, flashblockInterval)
    },

    async stop() {
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
      await queue
    },
  }
}

/** The environment with the timestamp it was given, if that is after the parent's; as computed otherwise. */
function withTimestamp(env: BlockEnv, parent: SealedBlock, timestamp: bigint | undefined): BlockEnv {
  if (timestamp !== undefined && timestamp > parent.block.header.timestamp) env.timestamp = timestamp
  return env
}
