import { Blob4844Tx, createMinimal4844TxFromNetworkWrapper } from '@ethereumjs/tx'
import { runTx } from '@ethereumjs/vm'

import { bytesToHex } from '@ethereumjs/util'

import { createEnvBlock } from '../execution/executor.ts'
import { yieldToEventLoop } from '../../runtime/eventLoop.ts'
import { buildWithAnyTransactions, builderRecord, replaceRootTries } from '../ethereumjs/blockBuilder.ts'
import { UpstreamError } from '../errors.ts'
import { SYSTEM_ADDRESS, startBuilder } from './startBuilder.ts'
import type { SystemWorkLookahead } from './startBuilder.ts'
import { createOrderedTrie } from './orderedTrie.ts'
import { toReceipt } from './receipts.ts'
import { createStateDiff } from '../state/types.ts'
import { AccessRecorder, FlashblockAccesses } from '../state/accesses.ts'
import { asDeposit, asTyped } from '../opstack/deposit.ts'
import { encodeRunReceipt, runDeposit, runRollupTransaction } from '../opstack/run.ts'

import type { Block } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { BlockBuilder, RunTxResult, VM } from '@ethereumjs/vm'
import type { BuilderRecord } from '../ethereumjs/blockBuilder.ts'
import type { ConsoleCalls } from './consoleCalls.ts'
import type { DepositTransaction } from '../opstack/deposit.ts'
import type { OpStackBlocks } from '../opstack/deposits.ts'
import type { PendingSnapshot } from '../blocks/types.ts'
import type { Pool, PoolTransaction } from './txpool.ts'
import type { FlatStateManager } from '../state/stateManager.ts'
import type { StateDiff } from '../state/types.ts'
import type { Hex } from '../../hex.ts'
import type { BlockEnv, Receipt } from '../types.ts'

/** The block the producer is building: its builder, what its flashblocks pre-confirmed, and what it published. */
export type Building = {
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
  /** The newest flashblock: where its transactions start, its own state writes, and what its runs accessed. */
  newest: { first: number; diff: StateDiff; accesses: FlashblockAccesses }
  /** What the runs since the newest flashblock accessed: the next flashblock's access list (state/accesses.ts). */
  accesses: FlashblockAccesses
  /**
   * Sees each run's accesses, and adds them to `accesses` when the run is part of the block: only in a block begun
   * while the stream had a reader, the one thing that reads them.
   */
  recorder: AccessRecorder | undefined
  /** The header the block would seal with as of the newest flashblock, and its hash. */
  preview: Preview | undefined
  /** The pending block as of each of its flashblocks, by that flashblock's block hash (eth_getBlockByHash). */
  byHash: Map<Hex, PendingSnapshot>
  /** The newest flashblock is the seal's, held back from the stream until the sealed block's roots are known. */
  held: boolean
}

/** The header a block would seal with as of a flashblock, and its hash. */
export type Preview = { header: Block['header']; hash: Hex }

/** What runs transactions on the block being built. */
export type BlockExecution = {
  vm: VM
  stateManager: FlatStateManager
  /** A pool transaction was found invalid when its turn came. */
  dropTransaction: (entry: PoolTransaction, reason: string) => void
  /** Collects each transaction's console.log calls for its receipt, while the node logs. */
  consoleCalls?: ConsoleCalls
  /** On an OP Stack chain: the deposits that open each block, and the L1 fee every other transaction pays. */
  opStack?: OpStackBlocks
}

/** Failures that say "not in this block", not "never": the transaction stays in the pool. */
const retryLater = [/higher gas limit than the remaining gas in the block/, /is less than the block's baseFeePerGas/, /blob gas limit reached/]

/** Starts a block on `parent` with the environment given, its builder's root tries replaced by growing ones. */
export async function openBlock(
  parts: Pick<BlockExecution, 'vm' | 'stateManager' | 'opStack'> & { record: boolean },
  parent: Block,
  env: BlockEnv,
  lookahead?: SystemWorkLookahead,
): Promise<Building> {
  const { vm, stateManager } = parts
  // The system calls' accesses are the block's first, at block access index 0; their caller, which each reads and
  // leaves as it was, is left out, as EIP-7928 has it.
  const recorder = parts.record ? new AccessRecorder() : undefined
  const accesses = new FlashblockAccesses()
  const builder = await recording({ stateManager, recorder }, () => startBuilder(vm, parent, env, lookahead))
  recorder?.end(0, stateManager.current(), accesses, SYSTEM_ADDRESS)
  // The builder's own transaction and receipt tries, grown as the block is (same roots): a root mid-block and the
  // seal's write only what was added since the last one.
  const sealed = builderRecord(builder)
  const transactionsTrie = createOrderedTrie((i) => sealed.transactions[i]!.serialize())
  const receiptTrie = createOrderedTrie((i) => encodeRunReceipt(sealed.results[i]!, sealed.transactions[i]!.type))
  replaceRootTries(builder, {
    transactionsTrie: () => transactionsTrie.rootOf(sealed.transactions.length),
    receiptTrie: () => receiptTrie.rootOf(sealed.results.length),
  })
  // Flashblock 0 holds the system calls (EIP-4788, EIP-2935) that buildBlock ran, and on an OP Stack chain the
  // deposits that open the block.
  const block: Building = {
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
    newest: { first: 0, diff: createStateDiff(), accesses: new FlashblockAccesses() },
    accesses,
    recorder,
    preview: undefined,
    byHash: new Map(),
    held: false,
  }
  if (parts.opStack !== undefined) {
    const deposits = await parts.opStack.openingDeposits(vm, env.timestamp, env.gasLimit)
    try {
      for (const deposit of deposits) await includeDeposit(parts, block, deposit)
    } catch (error) {
      // A fork's upstream that failed a read: the block is not started, and its user deposits wait for the next try.
      parts.opStack.requeue(deposits.slice(1))
      throw error
    }
  }
  return block
}

/** Runs a deposit that opens the block and adds it, receipt and all; the block's start has no room to refuse one. */
async function includeDeposit(parts: Pick<BlockExecution, 'vm' | 'stateManager'>, block: Building, deposit: DepositTransaction): Promise<void> {
  const { vm, stateManager } = parts
  const result = await recording({ stateManager, recorder: block.recorder }, () => runDeposit(vm, deposit, block.envBlock, block.builder.gasUsed))
  block.recorder?.end(block.transactions.length + 1, stateManager.current(), block.accesses)
  const tx = asTyped(deposit)
  block.sealed.add(tx, result, 0n)
  const hash = bytesToHex(deposit.hash()) as Hex
  const sender = deposit.from.toString() as Hex
  block.transactions.push(tx)
  block.senders.push(sender)
  block.receipts.push(toReceipt(result, deposit, block.env))
  block.entries.push({ tx, hash, sender, raw: deposit.serialize(), nonceAfter: deposit.nonce + 1n, taken: true })
}

/** Runs one pool transaction on the block being built, with the checks BlockBuilder.addTransaction makes. */
async function execute(parts: BlockExecution, block: Building, tx: TypedTransaction, impersonating?: Hex): Promise<RunTxResult> {
  const { vm, stateManager } = parts
  const { sealed, builder } = block
  if (tx.gasLimit > block.env.gasLimit - builder.gasUsed) throw new Error('tx has a higher gas limit than the remaining gas in the block')
  let blobGas = 0n
  if (tx instanceof Blob4844Tx) {
    blobGas = BigInt(tx.blobVersionedHashes.length) * vm.common.param('blobGasPerBlob')
    if (builder.blobGasUsed + blobGas > vm.common.getBlobGasSchedule().maxBlobGasPerBlock) throw new Error('block blob gas limit reached')
  }
  stateManager.codeHiddenFor = impersonating
  const depth = stateManager.depth
  let result: RunTxResult
  parts.consoleCalls?.start()
  try {
    const options = { tx, block: block.envBlock, blockGasUsed: builder.gasUsed, skipHardForkValidation: true }
    // A deposit here is a followed block's (a replica runs its sequencer's); runRollupTransaction runs it as one.
    const rollup = parts.opStack !== undefined || asDeposit(tx) !== undefined
    const run = () => (rollup ? runRollupTransaction(vm, options) : runTx(vm, options))
    result = await recording({ stateManager, recorder: block.recorder }, run)
  } catch (error) {
    // Nothing of a run that threw stays: not its nonce, nor the writes of the calls it was in (StateManager.revertTo).
    await stateManager.revertTo(depth)
    throw error
  } finally {
    stateManager.codeHiddenFor = undefined
  }
  block.recorder?.end(block.transactions.length + 1, stateManager.current(), block.accesses)
  // Blocks carry blob transactions without their blobs (EIP-4844).
  sealed.add(tx instanceof Blob4844Tx ? createMinimal4844TxFromNetworkWrapper(tx, { common: vm.common }) : tx, result, blobGas)
  return result
}

/**
 * Runs a pool transaction on the block being built and adds it, receipt and all; false when it did not run. One
 * that can never run is dropped, one that may fit a later block stays in the pool.
 */
export async function includeTransaction(parts: BlockExecution, block: Building, entry: PoolTransaction): Promise<boolean> {
  try {
    const result = await execute(parts, block, entry.tx, entry.impersonated === true ? entry.sender : undefined)
    block.transactions.push(entry.tx)
    block.senders.push(entry.sender)
    block.receipts.push(toReceipt(result, entry.tx, block.env, parts.consoleCalls?.take()))
    block.entries.push(entry)
    // It leaves the pool when its flashblock goes out (publish): until then it is pending to every reader.
    entry.taken = true
    return true
  } catch (error) {
    // A fork's upstream that failed a read says nothing of the transaction: it waits in the pool for the next try.
    if (error instanceof UpstreamError) return false
    const reason = error instanceof Error ? error.message : String(error)
    if (!retryLater.some((pattern) => pattern.test(reason))) parts.dropTransaction(entry, reason)
    return false
  }
}

/**
 * Seals the block's builder. What the end-of-block system calls (EIP-7002, EIP-7251) access goes to `accesses`, the
 * access list of the flashblock that ends the block, at index transactions + 1.
 */
export async function buildBlockOf(parts: Pick<BlockExecution, 'stateManager'>, block: Building, accesses: FlashblockAccesses): Promise<Block> {
  const { stateManager } = parts
  const built = await recording({ stateManager, recorder: block.recorder }, () => buildWithAnyTransactions(block.builder))
  block.recorder?.end(block.transactions.length + 1, stateManager.current(), accesses, SYSTEM_ADDRESS)
  return built
}

/** Runs `run` with `recorder` (if any) seeing the state manager's reads and writes. */
export async function recording<T>(
  parts: { stateManager: FlatStateManager; recorder: AccessRecorder | undefined },
  run: () => Promise<T>,
): Promise<T> {
  const { stateManager, recorder } = parts
  if (recorder === undefined) return run()
  stateManager.recorder = recorder
  try {
    return await run()
  } catch (error) {
    recorder.discard()
    throw error
  } finally {
    stateManager.recorder = undefined
  }
}

/** How long a bounded inclusion (includePooled) holds the event loop before it lets waiting requests through, ms. */
const INCLUDE_SLICE_MS = 10

/**
 * Executes what the pool holds into the block, unpublished: what the next flashblock will show. With `until` (a
 * performance.now() time), it stops in time for the flashblock to go out by then, publishing costing
 * `publishMsPerTx` per transaction it adds, and past at least one transaction: as Base's builder fills a flashblock
 * with what fits its interval, the rest waits for the next one, and the clock keeps its time under any load. Such a
 * run lets the event loop through every INCLUDE_SLICE_MS, as a seal does. True if transactions were left for later.
 */
export async function includePooled(parts: BlockExecution & { pool: Pool }, block: Building, until?: number, publishMsPerTx = 0): Promise<boolean> {
  const { pool, stateManager } = parts
  if (pool.size === 0) return false
  // Through the journal: transactions included since the last flashblock have moved their senders' nonces on.
  const stateNonce = (sender: Hex) => stateManager.nonce(sender)
  const baseFee = block.env.baseFeePerGas ?? 0n
  if (until === undefined) return pool.select(stateNonce, baseFee, (entry) => includeTransaction(parts, block, entry))
  let slice = performance.now()
  let taken = block.transactions.length - block.announced
  const include = async (entry: PoolTransaction) => {
    if (performance.now() - slice >= INCLUDE_SLICE_MS) {
      await yieldToEventLoop()
      slice = performance.now()
    }
    const included = await includeTransaction(parts, block, entry)
    if (included) taken++
    return included
  }
  return pool.select(stateNonce, baseFee, include, () => performance.now() + taken * publishMsPerTx >= until)
}
