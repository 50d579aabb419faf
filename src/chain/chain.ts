import { createVM } from '@ethereumjs/vm'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'

import { createOpStackBlocks } from './opstack/deposits.ts'
import { opStackAllocOf, opStackOf } from './opstack/mode.ts'
import { SEQUENCER_FEE_VAULT } from './opstack/addresses.ts'
import { createBlockResolver } from './blocks/tags.ts'
import { activityLog } from './activity/activityLog.ts'
import { createActivityDecoder } from './activity/decoder.ts'
import { RefusedError } from './errors.ts'
import { createChainEvents } from './events.ts'
import { createCalls } from './execution/calls.ts'
import { dropReason } from './gethErrors.ts'
import { createBlockchain } from './execution/executor.ts'
import { answerWorkerFetches } from './execution/workerFetches.ts'
import { cacheJumpAnalysis } from './ethereumjs/jumpAnalysis.ts'
import { unpatchedPackages } from './ethereumjs/patches.ts'
import { createAdmission, restorePool } from './production/admission.ts'
import { createAutomine } from './production/automine.ts'
import { collectConsoleCalls } from './production/consoleCalls.ts'
import { createClock } from './production/clock.ts'
import { createBlockPlan } from './production/plan.ts'
import { importBlocks } from './production/import.ts'
import { createStreamEdits } from './blocks/streamEdits.ts'
import { createRecentFlashblocks } from './blocks/recentFlashblocks.ts'
import { createProducer } from './production/producer.ts'
import { createSealPipeline } from './production/sealPipeline.ts'
import { prefetchSystemWork } from './production/startBuilder.ts'
import { createPool } from './production/txpool.ts'
import { createBlocksService } from './services/blocks.ts'
import { createCallsService } from './services/calls.ts'
import { createControlService } from './services/control.ts'
import { announcePublished, announceSealed, createEventsService } from './services/events.ts'
import { createForkService } from './services/fork.ts'
import { createPoolService } from './services/pool.ts'
import { createProducerService } from './services/producer.ts'
import { createSpecService } from './services/spec.ts'
import { createStateService } from './services/state.ts'
import { defaults } from './spec/config.ts'
import { deriveAccounts, keyAccount } from './spec/accounts.ts'
import { devChainGenesis } from './spec/devGenesis.ts'
import { codeSizeLimitOf, createForks } from './spec/forks.ts'
import { FlatStateManager } from './state/stateManager.ts'
import { openChainStore } from './storage/chainStore.ts'
import { openDatabase } from './storage/database.ts'
import { loadChain, readStoredFork, storedFork } from './storage/load.ts'
import { forkFirstBlock, hardforkOfHeader, openFork, openRefork } from './fork/fork.ts'
import { transportDefaults } from './fork/transport.ts'

import type { Hex } from '../hex.ts'
import type { PoolTransaction } from './production/txpool.ts'
import type { ChainOptions } from './spec/config.ts'
import type { BlocksService } from './services/blocks.ts'
import type { CallsService } from './services/calls.ts'
import type { ControlService } from './services/control.ts'
import type { EventsService } from './services/events.ts'
import type { ForkService } from './services/fork.ts'
import type { PoolService } from './services/pool.ts'
import type { ProducerService } from './services/producer.ts'
import type { SpecService } from './services/spec.ts'
import type { StateService } from './services/state.ts'
import type { Flashblock } from './types.ts'
import type { DevAccount } from './spec/accounts.ts'
import type { OpenFork } from './fork/fork.ts'
import type { ChainStore } from './storage/chainStore.ts'

/**
 * The chain's services, by name: what the layers above (the RPC, the wallet) reach the engine through. Each owns
 * its part of the engine; none goes through another (docs/architecture.md#the-engine-srcchain).
 */
export type ChainServices = {
  /** The chain's id, accounts and rules: which forks and EIPs are in force. */
  spec: SpecService
  /** Sealed blocks and the pending one, transactions, receipts, logs and fees, as plain data. */
  blocks: BlocksService
  /** The state of any block, its proofs and dumps. */
  state: StateService
  /** Calls, estimates, simulations, access lists and traces, on any block. */
  calls: CallsService
  /** Admission to the pool, what it holds, and the fees to offer. */
  pool: PoolService
  /** The single writer's controls: mining modes, flashblocks and seals on request, the block plan and the clock. */
  producer: ProducerService
  /** Test control: state edits, snapshots, reverts and resets. */
  control: ControlService
  /** What happens, for listeners: the chain's events and the flashblocks stream. */
  events: EventsService
  /** The fork the chain runs on, if any, and the upstream's answers for what came before it. */
  fork: ForkService
}

/** The chain: its services, and what closes it. */
export type Chain = ChainServices & { close(): Promise<void> }

/**
 * Composes the engine's parts (the store, the loaded chain, execution, the pool and its door, and the producer
 * with the pipeline its seals go through) into the chain's services, and starts it.
 */
export async function createChain(options: ChainOptions = {}): Promise<Chain> {
  const log = options.log ?? (() => {})
  // A database handed in belongs to the caller (who shares it with the wallet); one opened here is ours to close.
  const ownsDatabase = options.database === undefined
  const database = options.database ?? openDatabase(options)
  const store = openChainStore(database, log)
  const accounts =
    options.privateKeys?.map(keyAccount) ?? deriveAccounts(options.mnemonic ?? defaults.mnemonic, options.accounts ?? defaults.accounts)
  const rpcEvmTimeout = options.rpcEvmTimeout ?? defaults.rpcEvmTimeout
  let fork = await forkOf(store, options, rpcEvmTimeout)
  const devAccounts = new Set(accounts.map((account) => account.address.toLowerCase() as Hex))
  const revertCode = options.revertCode ?? defaults.revertCode
  const rpcGasCap = options.rpcGasCap ?? defaults.rpcGasCap
  const codeSizeLimit = codeSizeLimitOf(options)
  const startMode = options.mining ?? defaults.mining
  const flashblockInterval = options.flashblockInterval ?? defaults.flashblockInterval
  const interval = startMode === 'interval' ? { blockTime: options.blockTime ?? defaults.blockTime, flashblockInterval } : undefined

  const opStack = opStackOf(store, options)
  const loaded = await loadChain(store, {
    genesis: () => (fork === undefined ? (options.genesis ?? devChainGenesis(options, accounts)) : forkGenesis(fork, options, accounts)),
    beneath: opStack && fork === undefined ? opStackAllocOf : undefined,
    wholeTransactions: options.wholeTransactions,
    codeSizeLimit,
    fork,
    devAccounts,
    log,
  })
  const { spec, history, blocks, trie } = loaded
  const { common } = spec
  await cacheJumpAnalysis()
  const unpatched = unpatchedPackages()
  if (unpatched.length > 0) log(`warning: ${unpatched.join(', ')} without flashchain's speed patches: the same answers, more slowly`)
  const chainId = common.chainId()
  const forks = createForks(common)
  // BLOCKHASH of a block before a fork's fork block asks the upstream (kept once answered).
  const blockHashes = (number: bigint) => (number >= blocks.first || fork === undefined ? blocks.hash(number) : upstreamBlockHash(fork, number))
  let finalizedAtHead = store.getMeta('finalizedAtHead') === 'true'

  const events = createChainEvents(log)
  const flashblocks = createChainEvents<Flashblock>(log, () => 'flashblocks stream')
  // The console, unless nothing is logged (--quiet, or a library caller without a log).
  if (options.log !== undefined) events.subscribe(activityLog(log, createActivityDecoder(options.logAbis)))
  const traceMaxBytes = options.traceMaxBytes ?? defaults.traceMaxBytes
  const warm = () => (fork === undefined ? undefined : fork.remote.warm)
  const calls = await createCalls({ common, history, blockHashes, rpcGasCap, traceMaxBytes, debug: options.debug, warm })
  const pool = createPool()
  const producerCommon = common.copy()
  const stateManager = new FlatStateManager(history.at(blocks.head().number))
  const clock = createClock()
  const plan = createBlockPlan()
  const streamEdits = createStreamEdits(() => flashblocks.listening)
  const recentFlashblocks = createRecentFlashblocks(flashblocks)
  /** The stream's frames so far, which number them (Flashblock.sequence). */
  let streamed = 0
  const blockGasLimit = () =>
    options.genesis === undefined ? (options.blockGasLimit ?? (spec.header.gasLimit as bigint)) : blocks.head().block.header.gasLimit
  const producerVM = await createVM({ common: producerCommon, stateManager, blockchain: createBlockchain(blockHashes) })
  // An OP Stack chain's blocks open with deposits, and its tips go to the SequencerFeeVault, its coinbase.
  const opStackBlocks = opStack ? createOpStackBlocks({ common, store, log }) : undefined
  if (opStack) plan.coinbase = SEQUENCER_FEE_VAULT
  const producer = createProducer({
    opStack: opStackBlocks,
    clock,
    plan,
    common: producerCommon,
    vm: producerVM,
    // The console.log calls of each transaction, for the console's lines; nothing listens to the EVM without them.
    consoleCalls: options.log === undefined ? undefined : collectConsoleCalls(producerVM.evm),
    stateManager,
    history,
    trie,
    pool,
    blockGasLimit,
    head: () => blocks.head(),
    pipeline: createSealPipeline({
      // The workers' replicas and the answer cache follow the history (execution/calls.ts).
      history: (sealed, diff) => history.apply({ kind: 'block', number: sealed.number, hash: sealed.block.hash(), diff }),
      store: (sealed, diff) =>
        store.writeBlock(
          {
            number: sealed.number,
            hash: sealed.hash,
            rlp: sealed.block.serialize(),
            receipts: sealed.receipts,
            senders: sealed.senders,
            transactionHashes: sealed.block.transactions.map((tx) => bytesToHex(tx.hash()) as Hex),
          },
          diff,
        ),
      blocks: (sealed) => blocks.add(sealed),
      events(sealed) {
        streamEdits.moved()
        announceSealed(events, sealed)
      },
    }),
    streaming: () => flashblocks.listening,
    flashblock(flashblock) {
      const edits = streamEdits.take()
      const sequence = streamed++
      flashblocks.announce(() => ({ ...flashblock, edits, sequence }))
    },
    published(snapshot, first) {
      streamEdits.moved()
      announcePublished(events, snapshot, first)
    },
    dropTransaction(entry: PoolTransaction, reason: string) {
      pool.remove(entry.hash)
      store.removePoolTransactions([entry.hash])
      log(`dropped ${entry.hash} from the pool: ${dropReason(reason)}`)
    },
    log,
  })
  const pending = () => producer.pending()
  const admission = createAdmission({ chainId, forks, common, pool, store, pending, isSealed: (hash) => blocks.locate(hash) !== undefined, opStack })
  const resolver = createBlockResolver({
    blocks,
    pending,
    pendingByHash: (hash) => producer.pendingByHash(hash),
    finalizedAtHead: () => finalizedAtHead,
  })
  const automine = createAutomine({ producer, pool, pending }, startMode === 'auto')
  const services: ChainServices = {
    spec: createSpecService({
      chainId,
      revertCode,
      accounts,
      flashblockInterval,
      opStack,
      common,
      forks,
      depositContractAddress: spec.depositContractAddress,
      blocks,
      pending,
    }),
    blocks: createBlocksService({ blocks, resolver, pending, pool }),
    state: createStateService({ resolver, history, blocks, trie, producer }),
    calls: createCallsService({ calls, resolver, blocks, history, pending }),
    pool: createPoolService({ pool, admission, store, events, automine, producer, blocks, pending, forks, common, opStack: opStackBlocks }),
    producer: createProducerService({
      producer,
      decode: (raw, impersonated) => admission.decode(raw, impersonated),
      clock,
      plan,
      automine,
      interval,
      flashblockInterval,
      blocks,
      pool,
      pending,
      common,
      history,
      blockHashes,
      blockGasLimit,
    }),
    control: createControlService({
      store,
      history,
      trie,
      blocks,
      producer,
      pool,
      clock,
      calls,
      resolver,
      async genesis() {
        if (fork === undefined) return loaded.first()
        const { block, diff, trie } = await forkFirstBlock(fork, spec, devAccounts)
        return { number: block.header.number, diff, stateRoot: trie.root() }
      },
      // The stream's next flashblock tells it; the flashblocks kept of blocks it took back are no longer the chain's.
      changed(edit) {
        streamEdits.changed(edit)
        if (edit.kind !== 'edit') recentFlashblocks.rewound(edit.number)
      },
      refork:
        fork === undefined
          ? undefined
          : async (target) => {
              const opened = await openRefork(fork!, target, {
                options: options.fork!,
                dataDir: options.dataDir,
                deadlineMs: rpcEvmTimeout || undefined,
                chainId,
                spec,
                devAccounts,
              })
              return {
                ...opened,
                adopt() {
                  store.setMeta('fork', JSON.stringify(storedFork(opened.next.block)))
                  fork?.close()
                  fork = opened.next
                },
              }
            },
      log,
    }),
    events: createEventsService({
      events,
      flashblocks,
      recent: recentFlashblocks,
      pending,
      unsentEdits: () => ({ sequence: streamed, edits: streamEdits.peek() }),
    }),
    fork: createForkService({
      current: () => fork,
      blocks,
      resolver,
      retryBackoffMs: options.fork?.retryBackoffMs ?? transportDefaults.retryBackoffMs,
    }),
  }

  if (options.importBlocks !== undefined) {
    const imported = await importBlocks(options.importBlocks, { common, blocks, producer })
    // An imported chain is final: there is no consensus layer to disagree with it.
    finalizedAtHead = true
    store.setMeta('finalizedAtHead', 'true')
    log(`imported ${imported} blocks; head is block ${blocks.head().number} ${blocks.head().hash}`)
  }
  restorePool(admission, store, log, opStackBlocks === undefined ? undefined : { common, blocks: opStackBlocks })
  calls.startWorkers(
    options.workers ?? defaults.workers,
    () => ({
      genesis: loaded.genesisText,
      history: history.snapshot(),
      blockHashes: blocks.hashes(),
      firstBlock: blocks.first,
      fork: fork !== undefined,
      rpcGasCap,
      traceMaxBytes,
      codeSizeLimit,
    }),
    log,
    rpcEvmTimeout || undefined,
    answerWorkerFetches({ history, remote: () => fork?.remote, blockHashes }),
  )
  if (opStackBlocks !== undefined) services.control.participate(opStackBlocks.participant)
  if (interval !== undefined) producer.start(interval)
  // A new fork fetches what its first block's system work reads now, while it waits for a first transaction.
  if (fork?.asked === true) prefetchSystemWork(history.at(blocks.head().number), common, producer.pending().env)

  return {
    ...services,
    async close() {
      await producer.stop()
      await calls.close()
      fork?.close()
      if (ownsDatabase) database.close()
    },
  }
}

/**
 * The fork to start, or undefined for a chain of its own. A data dir that holds a fork resumes it (and needs its
 * upstream); one that holds a chain of its own cannot become a fork.
 */
async function forkOf(store: ChainStore, options: ChainOptions, rpcEvmTimeout: number): Promise<OpenFork | undefined> {
  const resume = readStoredFork(store)
  const holdsChain = store.getMeta('genesis') !== undefined
  if (options.fork === undefined) {
    if (resume !== undefined) {
      throw new RefusedError(
        `the data dir holds a fork of chain ${resume.chainId} at block ${resume.number}: start it with --fork-url, or with --fresh`,
      )
    }
    return undefined
  }
  if (holdsChain && resume === undefined)
    throw new RefusedError('the data dir holds a chain that is not a fork: start with --fresh to fork, or use another --data-dir')
  return openFork(options.fork, { dataDir: options.dataDir, deadlineMs: rpcEvmTimeout || undefined, resume })
}

/** A fork's genesis: the dev chain's, on the upstream's chain id, gas limit and hardfork (see forkFirstBlock). */
function forkGenesis(fork: OpenFork, options: ChainOptions, accounts: readonly DevAccount[]): Record<string, unknown> {
  return devChainGenesis(
    {
      ...options,
      chainId: options.fork?.chainId ?? fork.block.chainId,
      hardfork: options.hardfork ?? hardforkOfHeader(fork.header),
      blockGasLimit: options.blockGasLimit ?? BigInt(fork.header.gasLimit as string),
    },
    accounts,
  )
}

/** The hash of an upstream block before the fork block. */
async function upstreamBlockHash(fork: OpenFork, number: bigint): Promise<Uint8Array | undefined> {
  const block = (await fork.history.at('eth_getBlockByNumber', [`0x${number.toString(16)}`, false])) as { hash: Hex } | null
  return block === null ? undefined : hexToBytes(block.hash)
}
