import { Block, createBlock, createBlockHeaderFromRLP } from '@ethereumjs/block'
import { createTx } from '@ethereumjs/tx'
import { createVM, runTx } from '@ethereumjs/vm'
import { Address, createZeroAddress, hexToBytes } from '@ethereumjs/util'

import { InvalidInputError } from '../errors.ts'
import { initcodeSizeError } from '../gethErrors.ts'
import { attachGasProbe } from './gasProbe.ts'
import { DeadlinePassedError, watchDeadline } from './deadline.ts'
import { canSimulate, simulateCall } from './simulate.ts'
import { FlatStateManager } from '../state/stateManager.ts'
import { createStateDiff } from '../state/types.ts'

import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import type { RunTxResult, VM } from '@ethereumjs/vm'
import type { BlockEnv } from '../types.ts'
import type { GasProbe } from './gasProbe.ts'
import type { RunDeadline } from './deadline.ts'
import type { StateDiff, StateReader } from '../state/types.ts'
import type { Hex } from '../../hex.ts'

/** A transaction as eth_call and eth_estimateGas receive it, already validated and typed. */
export type CallRequest = {
  from?: Hex
  to?: Hex | null
  gas?: bigint
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  maxFeePerBlobGas?: bigint
  value?: bigint
  data?: Hex
  nonce?: bigint
  type?: number
  accessList?: { address: Hex; storageKeys: Hex[] }[]
  authorizationList?: { chainId: bigint; address: Hex; nonce: bigint; yParity: number; r: bigint; s: bigint }[]
  blobVersionedHashes?: Hex[]
}

/**
 * Every field of a CallRequest, those most often given first (an ERC20 transfer's estimate gives only the first
 * three). The worker's messages and the answer cache's keys list a request's fields in this order.
 */
export const CALL_REQUEST_FIELDS = [
  'from',
  'to',
  'data',
  'value',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'nonce',
  'type',
  'accessList',
  'maxFeePerBlobGas',
  'blobVersionedHashes',
  'authorizationList',
] as const satisfies readonly (keyof CallRequest)[]

/** Fails to compile when CallRequest gains a field that CALL_REQUEST_FIELDS does not list, which would be lost. */
type Unlisted = Exclude<keyof CallRequest, (typeof CALL_REQUEST_FIELDS)[number]>
const everyFieldListed: [Unlisted] extends [never] ? true : Unlisted = true
void everyFieldListed

/** What one EVM run of a call told us. */
export type CallOutcome =
  | {
      kind: 'success' | 'revert' | 'halt'
      returnValue: Uint8Array
      /** Gas charged after refunds and the EIP-7623 floor. */
      gasUsed: bigint
      /** Gas consumed before refunds: the least gas limit that can run this path. */
      gasConsumed: bigint
      /** The EVM's reason for a halt ("out of gas", "invalid opcode", …). */
      error?: string
      /**
       * After a success: the least gas limit under which this run provably takes the same path (see gasProbe.ts),
       * absent when the run looked at its gas (GAS, a call, a create) and only another run can tell.
       */
      sufficientGas?: bigint
    }
  /** The transaction could not start (intrinsic gas, fee below base fee, insufficient funds …). */
  | { kind: 'invalid'; error: string }

/** A block's hash by number, for BLOCKHASH; a fork's blocks before the fork block are the upstream's, which may wait. */
export type BlockHashes = (number: bigint) => Uint8Array | undefined | Promise<Uint8Array | undefined>

/**
 * Listeners on one run's EVM events, as tracers use them: each opcode before it runs, each message (call or create)
 * as it starts, and its result as it ends. A run with a step listener leaves the interpreter's fast loop, so only
 * runs that ask for one pay for it.
 */
export type ExecutionHooks = {
  /** With a second parameter, the run waits until it is called: a listener may take its time, or yield. */
  step?: (step: InterpreterStep, resolve?: () => void) => void
  beforeMessage?: (message: Message) => void
  afterMessage?: (result: EVMResult) => void
}

export type ExecutionView = {
  env: BlockEnv
  state: StateReader
  /**
   * performance.now() past which the run is dropped with DeadlinePassedError (deadline.ts), on an executor that
   * watches deadlines; none by default.
   */
  deadline?: number
}

/** Whether the request names any fee; with none, geth runs the call with base fee 0 ("NoBaseFee"). */
export function isPriced(request: CallRequest): boolean {
  return request.gasPrice !== undefined || request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined
}

export function createCallTransaction(request: CallRequest, gasLimit: bigint, common: Common): TypedTransaction {
  try {
    return callTransaction(request, gasLimit, common)
  } catch (error) {
    // Fields that cannot make a transaction of this fork (too many blobs, an authorization ethereumjs refuses …).
    const message = error instanceof Error ? error.message : String(error)
    throw initcodeSizeError(message, 'execution') ?? new InvalidInputError(message.replace(/ \(tx type=.*$/s, ''), { input: 'call' })
  }
}

function callTransaction(request: CallRequest, gasLimit: bigint, common: Common): TypedTransaction {
  const type =
    request.type ??
    (request.authorizationList !== undefined
      ? 4
      : request.blobVersionedHashes !== undefined
        ? 3
        : request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined
          ? 2
          : request.accessList !== undefined
            ? 1
            : request.gasPrice !== undefined
              ? 0
              : 2)
  const maxPriorityFeePerGas = request.maxPriorityFeePerGas ?? 0n
  const tx = createTx(
    {
      type,
      to: request.to == null ? undefined : hexBytes(request.to),
      gasLimit,
      value: request.value ?? 0n,
      data: request.data === undefined ? new Uint8Array() : hexBytes(request.data),
      nonce: request.nonce ?? 0n,
      gasPrice: type < 2 ? (request.gasPrice ?? 0n) : undefined,
      maxFeePerGas: type >= 2 ? (request.maxFeePerGas ?? request.gasPrice ?? maxPriorityFeePerGas) : undefined,
      maxPriorityFeePerGas: type >= 2 ? (request.maxPriorityFeePerGas ?? request.gasPrice ?? 0n) : undefined,
      maxFeePerBlobGas: type === 3 ? (request.maxFeePerBlobGas ?? 0n) : undefined,
      blobVersionedHashes: type === 3 ? request.blobVersionedHashes : undefined,
      accessList: type >= 1 ? request.accessList : undefined,
      authorizationList:
        type === 4
          ? request.authorizationList?.map((auth) => ({
              chainId: `0x${auth.chainId.toString(16)}`,
              address: auth.address,
              nonce: `0x${auth.nonce.toString(16)}`,
              yParity: `0x${auth.yParity.toString(16)}`,
              r: `0x${auth.r.toString(16)}`,
              s: `0x${auth.s.toString(16)}`,
            }))
          : undefined,
    } as Parameters<typeof createTx>[0],
    { common, freeze: false },
  )
  // The sender of a call is whoever the request names (the zero address if none); nothing is signed.
  const sender = request.from === undefined ? createZeroAddress() : new Address(new Uint8Array(hexBytes(request.from)))
  tx.getSenderAddress = () => sender
  return tx
}

/**
 * The bytes of a 0x-prefixed hex string, decoded by Buffer: a fifth of what the checking decoder takes (0.11 against
 * 0.5 µs for an ERC20 transfer's calldata). Buffer stops at the first character that is not hex, so a string that
 * does not decode whole goes to the checking decoder, which throws. The result may share Buffer's pool: the
 * transaction copies what it keeps.
 */
function hexBytes(hex: Hex): Uint8Array {
  const bytes = Buffer.from(hex.slice(2), 'hex')
  return bytes.length * 2 === hex.length - 2 ? bytes : hexToBytes(hex)
}

/**
 * Runs calls on pooled VMs. A run takes a VM, points its state manager at the view it was given and drops every
 * write afterwards; no state is copied.
 */
export type Executor = {
  /** `tx`, if given, is `request` already built with this `gasLimit` (an estimate builds its ceiling run's once). */
  call(request: CallRequest, gasLimit: bigint, view: ExecutionView, tx?: TypedTransaction): Promise<CallOutcome>
  /** Like `call`, and also hands back what the run wrote, so a later call can run on top of it. */
  execute(request: CallRequest, gasLimit: bigint, view: ExecutionView): Promise<{ outcome: CallOutcome; writes: StateDiff }>
  /** Like `execute`, with `hooks` listening to the run's EVM events. */
  trace(request: CallRequest, gasLimit: bigint, view: ExecutionView, hooks: ExecutionHooks): Promise<{ outcome: CallOutcome; writes: StateDiff }>
  readonly runs: number
}

export async function createExecutor(options: { common: Common; blockHashes: BlockHashes; deadlines?: boolean }): Promise<Executor> {
  /** `env`: the block environment the VM's Common was last moved to; moving it walks every fork, so runs skip it. */
  const free: { vm: VM; stateManager: FlatStateManager; probe: GasProbe; deadline?: RunDeadline; env?: BlockEnv }[] = []
  const blocks = new WeakMap<BlockEnv, { priced?: Block; unpriced?: Block }>()
  let runs = 0

  const emptyState: StateReader = { account: () => undefined, storage: () => new Uint8Array(0), code: () => undefined }

  async function acquire() {
    const pooled = free.pop()
    if (pooled !== undefined) return pooled
    const stateManager = new FlatStateManager(emptyState)
    const common = options.common.copy()
    const vm = await createVM({ common, stateManager, blockchain: createBlockchain(options.blockHashes) })
    return { vm, stateManager, probe: attachGasProbe(vm.evm), deadline: options.deadlines === true ? watchDeadline(vm.evm) : undefined }
  }

  function blockFor(env: BlockEnv, common: Common, priced: boolean): Block {
    let cached = blocks.get(env)
    if (cached === undefined) blocks.set(env, (cached = {}))
    const key = priced ? 'priced' : 'unpriced'
    const existing = cached[key]
    if (existing !== undefined) return existing
    const block = createEnvBlock(env, common, priced ? env.baseFeePerGas : 0n)
    cached[key] = block
    return block
  }

  return {
    get runs() {
      return runs
    },
    async call(request, gasLimit, view, tx) {
      return (await run(request, gasLimit, view, false, tx)).outcome
    },
    execute: (request, gasLimit, view) => run(request, gasLimit, view, true),
    trace: (request, gasLimit, view, hooks) => run(request, gasLimit, view, true, undefined, hooks),
  }

  async function run(
    request: CallRequest,
    gasLimit: bigint,
    view: ExecutionView,
    keepWrites: boolean,
    built?: TypedTransaction,
    hooks?: ExecutionHooks,
  ): Promise<{ outcome: CallOutcome; writes: StateDiff }> {
    const pooled = await acquire()
    const { vm, stateManager, probe, deadline } = pooled
    if (deadline !== undefined) deadline.at = view.deadline ?? Number.POSITIVE_INFINITY
    // A run dropped at its deadline leaves its VM mid-transaction: the VM goes, rather than back to the pool.
    let dropped = false
    const events = vm.evm.events!
    if (hooks?.step !== undefined) events.on('step', hooks.step)
    if (hooks?.beforeMessage !== undefined) events.on('beforeMessage', hooks.beforeMessage)
    if (hooks?.afterMessage !== undefined) events.on('afterMessage', hooks.afterMessage)
    try {
      runs++
      if (pooled.env !== view.env) {
        setHardforkFor(vm.common, view.env)
        pooled.env = view.env
      }
      stateManager.reset(view.state)
      const priced = isPriced(request)
      const tx = built ?? createCallTransaction(request, gasLimit, vm.common)
      const block = blockFor(view.env, vm.common, priced)
      probe.start(priced)
      // As in simulateCall: a call may come from an address with code, which runTx would refuse (EIP-3607).
      stateManager.codeHiddenFor = tx.getSenderAddress().toString() as Hex
      let result: Pick<RunTxResult, 'execResult' | 'totalGasSpent'>
      try {
        // Writes that are kept must be exactly a transaction's: only those runs take the whole runTx.
        result =
          !keepWrites && canSimulate(tx, vm, priced)
            ? await simulateCall(vm, tx, block)
            : await runTx(vm, {
                tx,
                block,
                skipNonce: true,
                skipBalance: !priced,
                skipBlockGasLimitValidation: true,
                skipHardForkValidation: true,
              })
      } catch (error) {
        if (error instanceof DeadlinePassedError) {
          dropped = true
          throw error
        }
        return { outcome: { kind: 'invalid', error: error instanceof Error ? error.message : String(error) }, writes: NO_WRITES }
      } finally {
        stateManager.codeHiddenFor = undefined
      }
      const { execResult } = result
      const gasConsumed = execResult.executionGasUsed + tx.getIntrinsicGas()
      const error = execResult.exceptionError?.error
      const consumed = gasConsumed > result.totalGasSpent ? gasConsumed : result.totalGasSpent
      return {
        outcome: {
          kind: error === undefined ? 'success' : error === 'revert' ? 'revert' : 'halt',
          returnValue: execResult.returnValue,
          gasUsed: result.totalGasSpent,
          gasConsumed: consumed,
          error,
          sufficientGas: error === undefined ? probe.sufficientGas(gasLimit, consumed) : undefined,
        },
        writes: keepWrites ? stateManager.writes() : NO_WRITES,
      }
    } finally {
      if (hooks?.step !== undefined) events.off('step', hooks.step)
      if (hooks?.beforeMessage !== undefined) events.off('beforeMessage', hooks.beforeMessage)
      if (hooks?.afterMessage !== undefined) events.off('afterMessage', hooks.afterMessage)
      stateManager.reset(emptyState)
      if (!dropped) free.push(pooled)
    }
  }
}

const NO_WRITES: StateDiff = createStateDiff()

/** BLOCKHASH before EIP-7709 asks the blockchain; this one answers from the chain's own blocks. */
export function createBlockchain(blockHashes: BlockHashes) {
  const blockchain = {
    async getBlock(number: number) {
      const hash = (await blockHashes(BigInt(number))) ?? new Uint8Array(32)
      return { hash: () => hash }
    },
    async putBlock() {},
    shallowCopy: () => blockchain,
  }
  return blockchain
}

export function setHardforkFor(common: Common, env: BlockEnv): void {
  // A no-op on a dev chain; an imported chain changes forks by block number and timestamp.
  common.setHardforkBy({ blockNumber: env.number, timestamp: env.timestamp })
}

/** A sealed block's header as a block of its own, from the header's RLP, under the rules of its number and time. */
export function createHeaderBlock(rlp: Uint8Array, common: Common): Block {
  const header = createBlockHeaderFromRLP(rlp, { common, setHardfork: true, skipConsensusFormatValidation: true })
  return new Block(header, [], [], undefined, { common: header.common })
}

/**
 * A header-only block carrying the environment, for runTx. `blobBaseFee`, if given, is the blob base fee that runTx
 * charges and BLOBBASEFEE reads, instead of the one the excess blob gas sets (eth_simulateV1 overrides it).
 */
export function createEnvBlock(env: BlockEnv, common: Common, baseFeePerGas: bigint | undefined, blobBaseFee?: bigint): Block {
  const block = createBlock(
    {
      header: {
        number: env.number,
        timestamp: env.timestamp,
        gasLimit: env.gasLimit,
        baseFeePerGas: common.isActivatedEIP(1559) ? baseFeePerGas : undefined,
        coinbase: env.coinbase,
        mixHash: env.prevRandao,
        difficulty: 0n,
        excessBlobGas: common.isActivatedEIP(4844) ? (env.excessBlobGas ?? 0n) : undefined,
        parentHash: env.parentHash,
        parentBeaconBlockRoot: common.isActivatedEIP(4788) ? env.parentBeaconBlockRoot : undefined,
      },
    },
    { common, skipConsensusFormatValidation: true, freeze: blobBaseFee === undefined },
  )
  if (blobBaseFee !== undefined) block.header.getBlobGasPrice = () => blobBaseFee
  return block
}
