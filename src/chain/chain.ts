import { createVM } from '@ethereumjs/vm'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'

import { BlockNotFoundError, InvalidInputError, NotFoundError, RefusedError } from './errors.ts'
import { feeHistory } from './blocks/feeHistory.ts'
import { encodeReceipt } from './blocks/encoding.ts'
import { findLogs, logsOf } from './blocks/logs.ts'
import { createBlockResolver } from './blocks/tags.ts'
import { pendingIndexOf } from './blocks/types.ts'
import { pendingBlockOf, pendingBlockPosition, sealedBlockOf, sealedBlockPosition, transactionOf } from './blocks/views.ts'
import { activityLog } from './activityLog.ts'
import { createChainEvents } from './events.ts'
import { erc20Word, findERC20Slot } from './execution/erc20Slot.ts'
import { createCalls } from './execution/calls.ts'
import { DEFAULT_TRACE_TIMEOUT_MS, replaySourceOf } from './execution/tracing/trace.ts'
import { dropReason } from './gethErrors.ts'
import { createBlockchain } from './execution/executor.ts'
import { cacheJumpAnalysis } from './ethereumjs/jumpAnalysis.ts'
import { unpatchedPackages } from './ethereumjs/patches.ts'
import { createAdmission } from './production/admission.ts'
import { suggestedFees } from './production/fees.ts'
import { MAX_TIMESTAMP, createClock } from './production/clock.ts'
import { buildPayload } from './production/payload.ts'
import { createBlockPlan } from './production/plan.ts'
import { importBlocks } from './production/import.ts'
import { createProducer } from './production/producer.ts'
import { createPool } from './production/txpool.ts'
import { defaults } from './spec/config.ts'
import { chainConfig } from './spec/forkConfig.ts'
import { deriveAccounts, keyAccount } from './spec/accounts.ts'
import { devChainGenesis } from './spec/devGenesis.ts'
import { codeSizeLimitOf, createForks } from './spec/forks.ts'
import { codeHexOf } from './state/code.ts'
import { dumpState, loadDump } from './state/dump.ts'
import { setStorage } from './state/edits.ts'
import { buildStateTrie, proveAccount, provesRoot } from './state/proof.ts'
import { FlatStateManager } from './state/stateManager.ts'
import { openChainStore } from './storage/chainStore.ts'
import { openDatabase } from './storage/database.ts'
import { loadChain } from './storage/load.ts'
import { createGenesis } from './state/genesis.ts'
import { createTestControl } from './testControl.ts'
import { EncodedJson } from '../runtime/encodedJson.ts'

import type { Hex } from '../hex.ts'
import type { ChainListener } from './events.ts'
import type { ResolvedBlock } from './blocks/tags.ts'
import type { PendingSnapshot, SealedBlock } from './blocks/types.ts'
import type { CallRequest } from './execution/executor.ts'
import type { ERC20Getter } from './execution/erc20Slot.ts'
import type { Overrides } from './execution/overrides.ts'
import type { SimulationRequest } from './execution/simulateBlocks.ts'
import type { TraceOptions } from './execution/tracing/trace.ts'
import type { SuggestedFees } from './production/fees.ts'
import type { BuiltPayload, PayloadRequest } from './production/payload.ts'
import type { BlockPlan } from './production/plan.ts'
import type { BlockStamps } from './production/producer.ts'
import type { PoolTransaction } from './production/txpool.ts'
import type { DevAccount } from './spec/accounts.ts'
import type { ChainOptions, MiningMode } from './spec/config.ts'
import type { StateDump } from './state/dump.ts'
import type { StateReader } from './state/types.ts'
import type { TestControl } from './testControl.ts'
import type {
  AccessListResult,
  AccountProof,
  Block,
  BlockSpecifier,
  ChainConfig,
  FeeHistory,
  Flashblock,
  FoundLog,
  LogFilter,
  PendingBlock,
  PoolContent,
  SequencePlan,
  SimulatedBlock,
  TransactionLocation,
} from './types.ts'

/**
 * The chain: its blocks and state as plain data, calls and estimates on any block, and the single writer that
 * pre-confirms transactions in flashblocks and seals blocks. Everything above it (the RPC, the wallet) goes
 * through this.
 */
export type Chain = {
  readonly chainId: bigint
  readonly revertCode: number
  readonly accounts: readonly DevAccount[]
  /** ms between flashblocks while blocks are produced on a clock. */
  readonly flashblockInterval: number
  /** How blocks are produced now: `auto` while automine is on, else `interval` while its clock runs, else `manual`. */
  readonly mining: MiningMode
  /**
   * Turns automine on or off (evm_setAutomine). Off, the chain goes back to its interval clock if it has one, as
   * Hardhat does; while automine is on, the clock is stopped.
   */
  setAutomine(enabled: boolean): Promise<void>
  /**
   * Seals a block every `blockTime` ms, with flashblocks between (evm_setIntervalMining), and turns automine off;
   * 0 stops the clock. -32602 for a block time shorter than the flashblock interval.
   */
  setIntervalMining(blockTime: number): Promise<void>
  /** Changes what the blocks to come take (evm_setBlockGasLimit, anvil_setCoinbase …); the pending block follows. */
  planBlocks(change: (plan: BlockPlan) => void): Promise<void>
  /** The lowest gas price a legacy transaction may offer (anvil_setMinGasPrice), on a chain without EIP-1559. */
  setMinGasPrice(price: bigint): void
  /** Moves the chain's clock forward (evm_increaseTime); returns how far it is ahead of wall time, s. */
  increaseTime(seconds: bigint): bigint
  /** The chain's clock, s: wall time plus what evm_increaseTime added, and never behind the latest block. */
  now(): bigint
  /** The timestamp the next block to start takes (evm_setNextBlockTimestamp); -32602 unless after the head's. */
  setNextBlockTimestamp(timestamp: bigint): void
  /**
   * Changes state in place, visible at once through `latest` and `pending`, without producing a block
   * (anvil_setBalance and the like). The latest block's state root no longer describes its state afterwards.
   */
  edit: TestControl['edit']
  snapshot: TestControl['snapshot']
  revert: TestControl['revert']
  reset: TestControl['reset']
  snapshots: TestControl['snapshots']
  /**
   * Sets what an ERC20 getter answers (anvil_dealERC20's balanceOf, anvil_setERC20Allowance's allowance): finds the
   * slot the getter reads it from, and edits it at latest and pending. -32602 when no slot holds the value whole.
   */
  setERC20(token: Hex, getter: ERC20Getter, amount: bigint): Promise<void>
  /**
   * Builds the block that would follow the head with a consensus layer's attributes and the given transactions
   * (or the node's own), and keeps nothing of it (testing_buildBlockV1).
   */
  buildPayload(request: PayloadRequest): Promise<BuiltPayload>
  /** Every live account of the latest state, with its code and storage (anvil_dumpState). */
  dumpState(): StateDump
  /** Loads a dump over the state, at latest and pending (anvil_loadState). */
  loadState(dump: StateDump): Promise<void>
  /** 32 random bytes naming this run of the chain; a reset draws new ones (hardhat_metadata's instanceId). */
  readonly instanceId: Hex
  /** The hardfork of the pending block, by its ethereumjs name. */
  hardfork(): string
  /** The newest sealed block. */
  head(): Block
  /** The block a specifier names (`pending`: the block being built); undefined when there is none. */
  block(block: BlockSpecifier): Block | PendingBlock | undefined
  /** A sealed block's RLP encoding, as a block body carries it; undefined when there is none. */
  rawBlock(block: BlockSpecifier): Uint8Array | undefined
  /** A sealed block's header, RLP-encoded; undefined when there is none (the pending block has no header before its seal). */
  rawHeader(block: BlockSpecifier): Uint8Array | undefined
  /** The consensus encoding of each receipt of a block, the pending block's too; undefined when there is no such block. */
  rawReceipts(block: BlockSpecifier): Uint8Array[] | undefined
  /** A sealed, pre-confirmed or pooled transaction's canonical encoding (EIP-2718); undefined for an unknown hash. */
  rawTransaction(hash: Hex): Uint8Array | undefined
  /** The number `block` names, without reading a sealed block back from the store; -32001 when there is none. */
  numberOf(block: BlockSpecifier): bigint
  /** The state after `block`; -32001 when there is none. */
  stateAt(block: BlockSpecifier): StateReader
  /**
   * EIP-1186: an account and some of its slots at `block`, with Merkle proofs against that block's state root. The
   * head is proved from the trie kept for it; any older block from a trie built from its flat state; `pending` from
   * the pending state's own trie, whose root is the one its block would seal with as it stands.
   */
  proof(address: Hex, slots: readonly Hex[], block: BlockSpecifier): Promise<AccountProof>
  /** The code at an address as hex, `0x` for none; an EIP-7702 delegated account's is its designator. */
  code(address: Hex, block: BlockSpecifier): Hex
  transaction(hash: Hex): TransactionLocation | undefined
  /** The nonce the sender's next transaction should use: pending state plus queued pool transactions. */
  nextNonce(address: Hex): bigint
  /** What the pool holds, against the pending state's nonces. */
  pool(): PoolContent
  /**
   * Takes transactions out of the pool and its store: those named, or every one. Pre-confirmed and sealed ones stay.
   * Returns the hashes dropped; a sender's later nonces wait behind the gap.
   */
  dropTransactions(hashes?: readonly Hex[]): Hex[]
  call(request: CallRequest, block: BlockSpecifier, overrides?: Overrides): Promise<Uint8Array>
  estimateGas(request: CallRequest, block: BlockSpecifier, overrides?: Overrides): Promise<bigint>
  /**
   * Gas for transactions to be sent one after the other: each is estimated on the state the previous ones leave.
   * One that will revert gets the gas its failing run consumed, and is marked.
   */
  estimateSequence(steps: { request: CallRequest; gas?: bigint }[], block: BlockSpecifier): Promise<SequencePlan[]>
  /**
   * eth_simulateV1: blocks of calls built on top of `block` (the pending block's state too), with their overrides;
   * nothing of it stays.
   */
  simulate(request: SimulationRequest, block: BlockSpecifier): Promise<SimulatedBlock[]>
  /**
   * debug_traceTransaction: a sealed or pre-confirmed transaction, replayed on its block with a tracer. Traces run on
   * an execution worker and answer their JSON as the worker encoded it, within --trace-max-bytes.
   */
  traceTransaction(hash: Hex, options: TraceOptions): Promise<EncodedJson>
  /** debug_traceBlockBy*: every transaction of a sealed block, or of the pending block as of its last flashblock. */
  traceBlock(block: BlockSpecifier, options: TraceOptions): Promise<EncodedJson>
  /** debug_traceCall: a call on the state after `block`, as eth_call runs it, with a tracer. */
  traceCall(request: CallRequest, block: BlockSpecifier, options: TraceOptions, overrides?: Overrides): Promise<EncodedJson>
  /** eth_createAccessList: the EIP-2930 access list a transaction needs on `block`, and its gas with it. */
  createAccessList(request: CallRequest, block: BlockSpecifier, overrides?: Overrides): Promise<AccessListResult>
  feeHistory(count: bigint, newest: BlockSpecifier, percentiles?: number[]): FeeHistory
  /** Fees to offer for a transaction in the pending block. */
  suggestedFees(): SuggestedFees
  /** The blob base fee (EIP-4844) of the newest sealed block, as geth's eth_blobBaseFee; undefined before Cancun. */
  blobBaseFee(): bigint | undefined
  /** EIP-7910: the fork in force at the head, and the next and last ones scheduled. */
  config(): ChainConfig
  logs(filter: LogFilter): FoundLog[]
  /** Whether an EIP is active in the pending block. */
  isActive(eip: number): boolean
  /** EIP-7825's per-transaction gas cap in the pending block, if active. */
  txGasCap(): bigint | undefined
  /**
   * Admits a signed transaction to the pool. With `impersonating`, it is from that account whatever its signature
   * says (anvil_impersonateAccount: the wallet decides who may).
   */
  sendRawTransaction(raw: Uint8Array, impersonating?: Hex): Promise<Hex>
  /** Executes what the pool holds and publishes one flashblock. */
  preconfirm(): Promise<PendingBlock>
  /**
   * Pre-confirms what is pending, then seals the block; with a timestamp, at that timestamp, which must be after the
   * latest block's and not past MAX_TIMESTAMP (-32602).
   */
  mine(options?: { timestamp?: bigint }): Promise<Block>
  /**
   * Seals `count` blocks, the first with what is pending, stamped as `stamps` says; other requests are answered
   * meanwhile. The first timestamp is checked as mine's; the caller keeps the last one within MAX_TIMESTAMP.
   */
  mineBlocks(count: bigint, stamps: BlockStamps): Promise<Block>
  /** Resolves once the transaction is pre-confirmed or sealed (true), or after `timeoutMs` (false). */
  waitForPreconfirmation(hash: Hex, timeoutMs: number): Promise<boolean>
  /**
   * Listens to what happens: transactions entering the pool, flashblocks, sealed blocks (see ChainEvent). Events
   * arrive in order, on a later turn than the change they announce. Returns what stops listening.
   */
  subscribe(listener: ChainListener): () => void
  /**
   * Listens to flashblocks as the flashblocks stream carries them: what each adds, and the block's roots and hash as
   * if sealed after it. Previewing them costs the writer work, done only while someone listens here.
   */
  subscribeFlashblocks(listener: (flashblock: Flashblock) => void): () => void
  /** EVM runs made by calls and estimates so far (a debug figure). */
  readonly executionRuns: number
  close(): Promise<void>
}

/** Composes the engine's parts: the store, the loaded chain, execution, the pool and its door, and the producer. */
export async function createChain(options: ChainOptions = {}): Promise<Chain> {
  const log = options.log ?? (() => {})
  // A database handed in belongs to the caller (who shares it with the wallet); one opened here is ours to close.
  const ownsDatabase = options.database === undefined
  const database = options.database ?? openDatabase(options)
  const store = openChainStore(database)
  const accounts =
    options.privateKeys?.map(keyAccount) ?? deriveAccounts(options.mnemonic ?? defaults.mnemonic, options.accounts ?? defaults.accounts)
  const revertCode = options.revertCode ?? defaults.revertCode
  const rpcGasCap = options.rpcGasCap ?? defaults.rpcGasCap
  const codeSizeLimit = codeSizeLimitOf(options)
  const startMode = options.mining ?? defaults.mining
  let automine = startMode === 'auto'
  const flashblockInterval = options.flashblockInterval ?? defaults.flashblockInterval
  let interval = startMode === 'interval' ? { blockTime: options.blockTime ?? defaults.blockTime, flashblockInterval } : undefined
  const miningMode = (): MiningMode => (automine ? 'auto' : interval !== undefined ? 'interval' : 'manual')

  const loaded = await loadChain(store, {
    genesis: () => options.genesis ?? devChainGenesis(options, accounts),
    wholeTransactions: options.wholeTransactions,
    codeSizeLimit,
    log,
  })
  const { spec, history, blocks, trie } = loaded
  const { common } = spec
  await cacheJumpAnalysis()
  const unpatched = unpatchedPackages()
  if (unpatched.length > 0) log(`warning: ${unpatched.join(', ')} without flashchain's speed patches: the same answers, more slowly`)
  const chainId = common.chainId()
  const forks = createForks(common)
  const blockHashes = (number: bigint) => blocks.hash(number)
  let finalizedAtHead = store.getMeta('finalizedAtHead') === 'true'

  const events = createChainEvents(log)
  const flashblocks = createChainEvents<Flashblock>(log, () => 'flashblocks stream')
  // The console, unless nothing is logged (--quiet, or a library caller without a log).
  if (options.log !== undefined) events.subscribe(activityLog(log))
  const traceMaxBytes = options.traceMaxBytes ?? defaults.traceMaxBytes
  const calls = await createCalls({ common, history, blockHashes, rpcGasCap, revertCode, traceMaxBytes, debug: options.debug })
  const pool = createPool()
  const producerCommon = common.copy()
  const stateManager = new FlatStateManager(history.at(blocks.head().number))
  const clock = createClock()
  const plan = createBlockPlan()
  const blockGasLimit = () =>
    options.genesis === undefined ? (options.blockGasLimit ?? (spec.header.gasLimit as bigint)) : blocks.head().block.header.gasLimit
  const producer = createProducer({
    clock,
    plan,
    common: producerCommon,
    vm: await createVM({ common: producerCommon, stateManager, blockchain: createBlockchain(blockHashes) }),
    stateManager,
    history,
    trie,
    pool,
    blockGasLimit,
    head: () => blocks.head(),
    commitBlock(sealed, diff) {
      // The workers' replicas and the answer cache follow the history (execution/calls.ts).
      history.apply({ kind: 'block', number: sealed.number, hash: sealed.block.hash(), diff })
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
      )
      blocks.add(sealed)
      events.announce(() => ({ type: 'sealed', block: sealedBlockOf(sealed), logs: logsOf(sealedLogsSource(sealed)) }))
    },
    streaming: () => flashblocks.listening,
    flashblock: (flashblock) => flashblocks.announce(() => flashblock),
    published(snapshot, first) {
      events.announce(() => ({ type: 'flashblock', block: pendingBlockOf(snapshot), first, logs: logsOf(pendingLogsSource(snapshot), first) }))
    },
    dropTransaction(entry: PoolTransaction, reason: string) {
      pool.remove(entry.hash)
      store.removePoolTransactions([entry.hash])
      log(`dropped ${entry.hash} from the pool: ${dropReason(reason)}`)
    },
    log,
  })
  const pending = () => producer.pending()
  const control = createTestControl({
    store,
    history,
    trie,
    blocks,
    producer,
    pool,
    clock,
    async genesis() {
      const { block, diff } = await createGenesis(spec)
      return { diff, stateRoot: block.header.stateRoot }
    },
    log,
  })
  const admission = createAdmission({ chainId, forks, common, pool, store, pending, isSealed: (hash) => blocks.locate(hash) !== undefined })
  const resolver = createBlockResolver({
    blocks,
    pending,
    pendingByHash: (hash) => producer.pendingByHash(hash),
    finalizedAtHead: () => finalizedAtHead,
  })

  if (options.importBlocks !== undefined) {
    const imported = await importBlocks(options.importBlocks, { common, blocks, producer })
    // An imported chain is final: there is no consensus layer to disagree with it.
    finalizedAtHead = true
    store.setMeta('finalizedAtHead', 'true')
    log(`imported ${imported} blocks; head is block ${blocks.head().number} ${blocks.head().hash}`)
  }

  // Transactions whose hash was returned before a restart are back in the pool, in arrival order.
  for (const { hash, raw, sender, publicKey } of store.poolTransactions()) {
    try {
      const tx = admission.decode(raw, sender !== undefined)
      // The key recovered when it was first admitted: no signature is recovered again (a frozen transaction reads it).
      if (publicKey !== undefined && sender === undefined) tx.cache.senderPubKey = publicKey
      admission.admit(tx, raw, sender, true)
    } catch (error) {
      store.removePoolTransactions([hash])
      log(`dropped a stored pool transaction: ${error instanceof Error ? error.message : error}`)
    }
  }

  calls.startWorkers(
    options.workers ?? defaults.workers,
    () => ({
      genesis: loaded.genesisText,
      history: history.snapshot(),
      blockHashes: blocks.hashes(),
      rpcGasCap,
      revertCode,
      traceMaxBytes,
      codeSizeLimit,
    }),
    log,
    (options.rpcEvmTimeout ?? defaults.rpcEvmTimeout) || undefined,
  )
  if (interval !== undefined) producer.start(interval)

  const resolve = (specifier: BlockSpecifier): ResolvedBlock => resolver.resolve(specifier)
  function resolveIfAny(specifier: BlockSpecifier): ResolvedBlock | undefined {
    try {
      return resolve(specifier)
    } catch (error) {
      if (error instanceof BlockNotFoundError) return undefined
      throw error
    }
  }
  const stateOf = (resolved: ResolvedBlock): StateReader => (resolved.kind === 'pending' ? resolved.block.state : history.at(resolved.block.number))
  const pendingEnv = () => pending().env

  /**
   * Auto mining: seals one after another, each only if the transaction that asked for it is not sealed yet, so
   * transactions sent together fill blocks rather than leave empty ones behind them.
   */
  let autoSeal: Promise<unknown> = Promise.resolve()
  function sealWith(hash: Hex): Promise<void> {
    const sealed = autoSeal.then(async () => {
      if (pool.get(hash) !== undefined || pendingIndexOf(pending(), hash) !== undefined) await producer.seal()
    })
    autoSeal = sealed.catch(() => {})
    return sealed
  }

  return {
    chainId,
    revertCode,
    accounts,
    flashblockInterval,
    get mining() {
      return miningMode()
    },
    increaseTime(seconds) {
      const now = BigInt(Math.floor(clock.now() / 1000))
      if (now + seconds > MAX_TIMESTAMP) throw new InvalidInputError(`the clock would pass ${MAX_TIMESTAMP}, the latest timestamp a block may take`)
      return clock.increase(seconds)
    },
    now() {
      const seconds = BigInt(Math.floor(clock.now() / 1000))
      const latest = blocks.head().block.header.timestamp
      return seconds > latest ? seconds : latest
    },
    setNextBlockTimestamp(timestamp) {
      checkTimestamp(timestamp)
      clock.next = timestamp
    },
    async setAutomine(enabled) {
      if (enabled === automine) return
      automine = enabled
      if (interval === undefined) return
      if (enabled) await producer.stop()
      else producer.start(interval)
    },
    async setIntervalMining(blockTime) {
      if (blockTime !== 0 && blockTime < flashblockInterval) {
        throw new InvalidInputError(`a block time of ${blockTime} ms is shorter than the flashblock interval, ${flashblockInterval} ms`)
      }
      await producer.stop()
      interval = blockTime === 0 ? undefined : { blockTime, flashblockInterval }
      if (interval === undefined) return
      automine = false
      producer.start(interval)
    },
    planBlocks: (change) =>
      producer.exclusive(async () => {
        change(plan)
        producer.replan()
      }),
    setMinGasPrice(price) {
      if (forks.at(pendingEnv()).isActivatedEIP(1559)) throw new InvalidInputError('anvil_setMinGasPrice is not supported when EIP-1559 is active')
      admission.minGasPrice = price
    },
    edit: control.edit,
    snapshot: control.snapshot,
    revert: control.revert,
    reset: control.reset,
    snapshots: control.snapshots,
    buildPayload: (request) =>
      buildPayload(
        {
          common,
          history,
          blockHashes,
          head: () => blocks.head(),
          plan,
          blockGasLimit,
          waiting() {
            const { state } = pending()
            const building = producer.building()?.transactions ?? []
            const pooled = pool.content((sender) => state.account(sender)?.nonce ?? 0n).pending
            return [...building, ...pooled].map((entry) => entry.tx)
          },
        },
        request,
      ),
    dumpState: () => dumpState(history.entries(), history.at(blocks.head().number)),
    loadState: (dump) => control.edit(loadDump(dump)),
    async setERC20(token, getter, amount) {
      const { address, slot } = await findERC20Slot(calls, resolve('latest'), token, getter)
      await control.edit(setStorage(address, hexToBytes(slot), erc20Word(amount)))
    },
    get instanceId() {
      return control.instanceId
    },
    hardfork: () => forks.at(pendingEnv()).hardfork(),
    head: () => sealedBlockOf(blocks.head()),
    block(specifier) {
      const resolved = resolveIfAny(specifier)
      if (resolved === undefined) return undefined
      return resolved.kind === 'pending' ? pendingBlockOf(resolved.block) : sealedBlockOf(resolved.block)
    },
    rawBlock(specifier) {
      const resolved = resolveIfAny(specifier)
      return resolved?.kind === 'sealed' ? resolved.block.block.serialize() : undefined
    },
    rawHeader(specifier) {
      const resolved = resolveIfAny(specifier)
      return resolved?.kind === 'sealed' ? resolved.block.block.header.serialize() : undefined
    },
    rawReceipts(specifier) {
      const resolved = resolveIfAny(specifier)
      if (resolved === undefined) return undefined
      const { receipts } = resolved.block
      const transactions = resolved.kind === 'sealed' ? resolved.block.block.transactions : resolved.block.transactions
      return receipts.map((receipt, i) => encodeReceipt(receipt, transactions[i]!.type))
    },
    rawTransaction(hash) {
      const key = hash.toLowerCase() as Hex
      const sealedAt = blocks.locate(key)
      if (sealedAt !== undefined) return blocks.byNumber(sealedAt.number)!.block.transactions[sealedAt.index]!.serialize()
      const snapshot = pending()
      const index = pendingIndexOf(snapshot, key)
      if (index !== undefined) return snapshot.transactions[index]!.serialize()
      return pool.get(key)?.tx.serialize()
    },
    numberOf: (specifier) => resolver.numberOf(specifier),
    stateAt: (specifier) => stateOf(resolve(specifier)),
    code: (address, specifier) => codeHexOf(stateOf(resolve(specifier)), address),
    async proof(address, slots, specifier) {
      const resolved = resolve(specifier)
      const state = stateOf(resolved)
      if (resolved.kind === 'pending') return proveAccount(await buildStateTrie(state, history), state, address, slots)
      const { number } = resolved.block
      const stateRoot = bytesToHex(resolved.block.block.header.stateRoot) as Hex
      // The head's trie changes only on the writer's queue: read it there, while it is still this block's.
      const fromHead = await producer.exclusive(async () =>
        blocks.head().number === number && provesRoot(trie, stateRoot) ? proveAccount(trie, state, address, slots) : undefined,
      )
      if (fromHead !== undefined) return fromHead
      const built = await buildStateTrie(state, history)
      if (!provesRoot(built, stateRoot)) throw new Error(`the state of block ${number} does not rebuild to its state root`)
      return proveAccount(built, state, address, slots)
    },
    transaction: (hash) => locate(hash, pending()),
    nextNonce: (address) => admission.nextNonce(address),
    dropTransactions(hashes) {
      // One taken for the next flashblock is as good as pre-confirmed: it stays.
      const dropped = (hashes ?? [...pool.all()].map((entry) => entry.hash)).filter((hash) => {
        const entry = pool.get(hash)
        return entry !== undefined && entry.taken !== true
      })
      for (const hash of dropped) pool.remove(hash)
      store.removePoolTransactions(dropped)
      return dropped
    },
    pool() {
      const { state } = pending()
      const content = pool.content((sender) => state.account(sender)?.nonce ?? 0n)
      const plain = (entries: PoolTransaction[]) => entries.map((entry) => transactionOf(entry.tx, entry.sender))
      return { pending: plain(content.pending), queued: plain(content.queued) }
    },
    call: (request, specifier, overrides = {}) => calls.call(request, resolve(specifier), overrides),
    estimateGas: (request, specifier, overrides = {}) => calls.estimateGas(request, resolve(specifier), overrides),
    estimateSequence: (steps, specifier) => calls.estimateSequence(steps, resolve(specifier)),
    async simulate(request, specifier) {
      const resolved = resolve(specifier)
      const base = resolved.kind === 'sealed' ? resolved.block.block.header.serialize() : undefined
      return (await calls.job({ kind: 'simulate', request, base }, calls.view(resolved))) as SimulatedBlock[]
    },
    async traceTransaction(hash, traceOptions) {
      const key = hash.toLowerCase() as Hex
      const sealedAt = blocks.locate(key)
      // A pre-confirmed transaction is traced on the pending block as of this flashblock, before its seal.
      const snapshot = pending()
      const at =
        sealedAt !== undefined
          ? { resolved: { kind: 'sealed', block: blocks.byNumber(sealedAt.number)! } as const, index: sealedAt.index }
          : { resolved: { kind: 'pending', block: snapshot } as const, index: pendingIndexOf(snapshot, key) }
      if (at.index === undefined) throw new NotFoundError('transaction not found')
      return trace(at.resolved, at.index, at.index, true, traceOptions)
    },
    traceBlock(specifier, traceOptions) {
      const resolved = resolveIfAny(specifier)
      if (resolved === undefined) {
        throw new NotFoundError(typeof specifier === 'object' ? `block ${specifier.blockHash} not found` : `block #${specifier} not found`)
      }
      const count = resolved.kind === 'sealed' ? resolved.block.block.transactions.length : resolved.block.transactions.length
      if (resolved.kind === 'sealed' && resolved.block.number === 0n) throw new RefusedError('genesis is not traceable')
      if (count === 0) return Promise.resolve(EncodedJson.of('[]'))
      return trace(resolved, 0, count - 1, false, traceOptions)
    },
    async traceCall(request, specifier, traceOptions, overrides = {}) {
      const job = { kind: 'traceCall', request, options: traceOptions } as const
      return new EncodedJson((await calls.job(job, calls.view(resolve(specifier), overrides), traceTimeout(traceOptions))) as Uint8Array)
    },
    createAccessList: (request, specifier, overrides = {}) => calls.createAccessList(request, resolve(specifier), overrides),
    feeHistory(count, newest, percentiles) {
      const resolved = resolve(newest)
      return feeHistory(blocks, count, resolved.kind === 'pending' ? blocks.head().number : resolved.block.number, percentiles)
    },
    suggestedFees: () => suggestedFees(pendingEnv().baseFeePerGas ?? 0n),
    blobBaseFee() {
      const { header } = blocks.head().block
      return header.excessBlobGas === undefined ? undefined : header.getBlobGasPrice()
    },
    config() {
      const genesis = blocks.byNumber(0n)!.block
      return chainConfig(common, {
        genesisHash: genesis.hash(),
        genesisTimestamp: genesis.header.timestamp,
        headTimestamp: blocks.head().block.header.timestamp,
        depositContractAddress: spec.depositContractAddress,
      })
    },
    logs: (filter) => findLogs(filter, { blocks, pending, common }),
    isActive: (eip) => forks.at(pendingEnv()).isActivatedEIP(eip),
    txGasCap: () => forks.txGasCap(pendingEnv()),
    async sendRawTransaction(raw, impersonating) {
      const hash = admission.admit(admission.decode(raw, impersonating !== undefined), raw, impersonating)
      const entry = pool.get(hash)
      if (entry !== undefined) events.announce(() => ({ type: 'poolTransaction', transaction: transactionOf(entry.tx, entry.sender) }))
      if (automine) await sealWith(hash)
      return hash
    },
    preconfirm: async () => pendingBlockOf(await producer.preconfirm()),
    async mine(mineOptions = {}) {
      if (mineOptions.timestamp !== undefined) checkTimestamp(mineOptions.timestamp)
      return sealedBlockOf(await producer.seal(mineOptions))
    },
    async mineBlocks(count, stamps) {
      if (stamps.timestamp !== undefined) checkTimestamp(stamps.timestamp)
      return sealedBlockOf(await producer.sealBlocks(count, stamps))
    },
    waitForPreconfirmation(hash, timeoutMs) {
      // Automine seals a transaction before its send answers: it was pre-confirmed on the way.
      if (blocks.locate(hash.toLowerCase() as Hex) !== undefined) return Promise.resolve(true)
      return producer.waitForPreconfirmation(hash, timeoutMs)
    },
    subscribe: (listener) => events.subscribe(listener),
    subscribeFlashblocks: (listener) => flashblocks.subscribe(listener),
    get executionRuns() {
      return calls.runs
    },
    async close() {
      await producer.stop()
      await calls.close()
      if (ownsDatabase) database.close()
    },
  }

  /** Transactions `first`…`last` of a block traced on a worker; `one`: the first's trace alone. */
  async function trace(resolved: ResolvedBlock, first: number, last: number, one: boolean, traceOptions: TraceOptions): Promise<EncodedJson> {
    const { source, view } = replaySourceOf(resolved, { history, head: () => blocks.head().number })
    const job = { kind: 'traceBlock', source, first, last, one, options: traceOptions } as const
    return new EncodedJson((await calls.job(job, view, traceTimeout(traceOptions))) as Uint8Array)
  }

  /** -32602 unless a timestamp can be the next block's: after the latest block's, and not past MAX_TIMESTAMP. */
  function checkTimestamp(timestamp: bigint) {
    const latest = blocks.head().block.header.timestamp
    if (timestamp <= latest) throw new InvalidInputError(`timestamp ${timestamp} is not after the latest block's, ${latest}`)
    if (timestamp > MAX_TIMESTAMP) throw new InvalidInputError(`timestamp ${timestamp} is past ${MAX_TIMESTAMP}, the latest a block may take`)
  }

  function locate(hash: Hex, snapshot: PendingSnapshot): TransactionLocation | undefined {
    const key = hash.toLowerCase() as Hex
    const sealedAt = blocks.locate(key)
    if (sealedAt !== undefined) {
      const sealed = blocks.byNumber(sealedAt.number)!
      const { index } = sealedAt
      return {
        kind: 'sealed',
        transaction: transactionOf(sealed.block.transactions[index]!, sealed.senders[index]!),
        block: sealedBlockPosition(sealed),
        index,
        receipt: sealed.receipts[index]!,
        logIndex: firstLogIndex(sealed.receipts, index),
      }
    }
    const index = pendingIndexOf(snapshot, key)
    if (index !== undefined) {
      return {
        kind: 'preconfirmed',
        transaction: transactionOf(snapshot.transactions[index]!, snapshot.senders[index]!),
        block: pendingBlockPosition(snapshot),
        index,
        receipt: snapshot.receipts[index]!,
        logIndex: firstLogIndex(snapshot.receipts, index),
      }
    }
    const queued = pool.get(key)
    return queued === undefined ? undefined : { kind: 'pool', transaction: transactionOf(queued.tx, queued.sender) }
  }
}

/**
 * How long a trace's worker may take before it is stopped: the trace's own timeout, which the worker answers itself,
 * and a second more, for a trace that hangs between steps.
 */
function traceTimeout(options: TraceOptions): number {
  return (options.timeoutMs ?? DEFAULT_TRACE_TIMEOUT_MS) + 1_000
}

/** A sealed block's logs with their positions, for its announcement. */
function sealedLogsSource(sealed: SealedBlock) {
  const { block } = sealed
  return {
    number: sealed.number,
    hash: sealed.hash,
    timestamp: block.header.timestamp,
    receipts: sealed.receipts,
    transactionHash: (index: number) => bytesToHex(block.transactions[index]!.hash()) as Hex,
  }
}

/** The pending block's logs, with the hash of their block as of its newest flashblock. */
function pendingLogsSource(pending: PendingSnapshot) {
  return {
    number: pending.env.number,
    hash: pending.hash,
    timestamp: pending.env.timestamp,
    receipts: pending.receipts,
    transactionHash: (index: number) => bytesToHex(pending.transactions[index]!.hash()) as Hex,
  }
}

/** The index in its block of a transaction's first log: the logs of the transactions before it. */
function firstLogIndex(receipts: readonly { logs: readonly unknown[] }[], position: number): number {
  let count = 0
  for (let i = 0; i < position; i++) count += receipts[i]!.logs.length
  return count
}
