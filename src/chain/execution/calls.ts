import { ExecutionRevertedError } from '../errors.ts'
import { headerEnv } from '../blocks/env.ts'
import { createOverlay } from '../state/overlay.ts'
import { createAnswerCache } from './answers.ts'
import { createCallRunner } from './callRunner.ts'
import { CALL_STIPEND } from './estimate.ts'
import { createJobRunner } from './jobs.ts'
import { withOverrides } from './overrides.ts'
import { WorkerGoneError, createExecutionPool } from './workerPool.ts'
import { DeadlinePassedError } from './deadline.ts'
import { jobCall, warmedView } from './warming.ts'

import type { Common } from '@ethereumjs/common'
import type { ResolvedBlock } from '../blocks/tags.ts'
import type { SealedBlock } from '../blocks/types.ts'
import type { StateHistory } from '../state/history.ts'
import type { StateReader } from '../state/types.ts'
import type { Hex } from '../../hex.ts'
import type { AccessListResult, BlockEnv, SequencePlan } from '../types.ts'
import type { Job, JobAnswer } from './jobs.ts'
import type { CallRunner } from './callRunner.ts'
import type { BlockHashes, CallRequest, ExecutionView } from './executor.ts'
import type { Overrides } from './overrides.ts'
import type { Warm } from './warming.ts'
import type { WorkerInit } from './workerMessages.ts'
import type { ExecutionPool, ExecutionPoolOptions, RemoteAnswer } from './workerPool.ts'

/** Times a run is sent to another worker after its own exited under it, before the failure is the answer. */
const WORKER_RETRIES = 3
/**
 * ms this thread gives a call it runs while no worker is ready. Past it, the run is dropped at its next jump and
 * waits for a worker instead: a heavy call (a loop of bn254 multiplications takes seconds) never holds this thread,
 * which answers every other request and keeps the flashblock clock.
 */
const MAIN_THREAD_BUDGET_MS = 50
/**
 * ms after the first call tried on this thread before the workers start. A worker's load takes a core for 0.15–0.25 s;
 * begun at once, it slowed the very calls this thread answers meanwhile (a fork's first swap, on two cores: 70–72 ms
 * against 45–55 with the start put off). A call that has to wait for a worker starts them at once.
 */
const WORKER_START_DELAY_MS = 250

export type CallsOptions = {
  common: Common
  history: StateHistory
  blockHashes: BlockHashes
  rpcGasCap: bigint
  /** The most bytes a trace's JSON may take. */
  traceMaxBytes: number
  debug?: (line: string) => void
  /** A fork's warming of a run's reads, while the chain is a fork (warming.ts). */
  warm?: () => Warm
}

/**
 * eth_call, eth_estimateGas and the wallet's sequence estimates, on any block's state: answered from the answer
 * cache when the same request was answered on the same snapshot, else run on an execution worker when one is free,
 * else on this thread.
 */
export type Calls = {
  call(request: CallRequest, block: ResolvedBlock, overrides: Overrides): Promise<Uint8Array>
  estimateGas(request: CallRequest, block: ResolvedBlock, overrides: Overrides): Promise<bigint>
  /**
   * Gas for transactions to be sent one after the other: each is estimated on the state the previous ones leave.
   * One that will revert gets the gas its failing run consumed, and is marked.
   */
  estimateSequence(steps: { request: CallRequest; gas?: bigint }[], block: ResolvedBlock): Promise<SequencePlan[]>
  /** What a call on `block` runs on: its environment and state, with the overrides applied. */
  view(block: ResolvedBlock, overrides?: Overrides): ExecutionView
  /** This thread's runner. */
  readonly runner: CallRunner
  /** eth_createAccessList (see accessList.ts), on a worker as eth_call runs. */
  createAccessList(request: CallRequest, block: ResolvedBlock, overrides: Overrides): Promise<AccessListResult>
  /**
   * A simulation, a trace or an access list (jobs.ts) on `view`, on a worker as eth_call runs, under the pool's
   * timeout or `timeoutMs`; on this thread only when there are no workers (`workers: 0`), and then without a timeout.
   */
  job(job: Job, view: ExecutionView, timeoutMs?: number): Promise<JobAnswer>
  /**
   * Starts `size` worker threads, each from what `init` gives it then (a snapshot of the history), and each sent
   * every change the history applies after. `timeoutMs`: a run on a worker not answered by then is aborted
   * (ExecutionPoolOptions.timeoutMs).
   */
  startWorkers(size: number, init: () => WorkerInit, log: (line: string) => void, timeoutMs?: number, fetch?: ExecutionPoolOptions['fetch']): void
  /** The storage slots a call reads, in the order it first reads them, by account (on this thread). */
  storageReads(request: CallRequest, block: ResolvedBlock): Promise<{ address: Hex; slot: Hex }[]>
  /** EVM runs made by calls and estimates so far (a debug figure). */
  readonly runs: number
  close(): Promise<void>
}

export async function createCalls(options: CallsOptions): Promise<Calls> {
  const { history, debug } = options
  const runner = await createCallRunner({ ...options, deadlines: true })
  const { executor } = runner
  const answers = createAnswerCache()
  let workers: ExecutionPool | undefined

  // Every change the history applies, in the one place the workers and the answer cache learn of it: the workers'
  // replicas apply it too, and answers on a snapshot it changed in place are forgotten.
  const unfollow = history.follow((change) => {
    workers?.apply(change)
    switch (change.kind) {
      // A new block is a new snapshot: answers on the older ones stay true.
      case 'block':
        break
      // An edit or a revert changes a snapshot's state in place (see AnswerCache.clear).
      case 'edit':
      case 'rewind':
      // Another fork point beneath every state.
      case 'upstream':
        answers.clear()
        break
      default:
        change satisfies never
    }
  })

  // One environment object per sealed block, so the executor's per-environment caches hit across requests.
  const envs = new WeakMap<SealedBlock, BlockEnv>()
  function viewOf(resolved: ResolvedBlock): ExecutionView {
    if (resolved.kind === 'pending') return { env: resolved.block.env, state: resolved.block.state }
    let env = envs.get(resolved.block)
    if (env === undefined) envs.set(resolved.block, (env = headerEnv(resolved.block.block)))
    return { env, state: history.at(resolved.block.number) }
  }

  /**
   * On a worker whenever there are workers: a run waits for a busy one rather than hold this thread, which answers
   * every other request. While none is ready (the workers start WORKER_START_DELAY_MS after the first call, and after
   * idleness, and take about 0.2 s to load), this thread tries one call or estimate at a time itself, for
   * MAIN_THREAD_BUDGET_MS, rather than make it wait. The next call, and one that passes the budget, wait for a worker,
   * and start the workers at once. A worker that exits mid-run (another run's timeout stopped it) hands the run to
   * the next. Here, without limit, without workers or for a view no worker can rebuild.
   */
  let tryingHere = false
  async function onWorkerOr<T>(
    send: () => Promise<RemoteAnswer> | undefined,
    fromWorker: (answer: RemoteAnswer) => T,
    here: (deadline?: number) => Promise<T>,
    tryHere = true,
  ): Promise<{ value: T; where: 'a worker' | 'the main thread' }> {
    if (tryHere && workers !== undefined && !workers.ready && !tryingHere) {
      workers.fill(WORKER_START_DELAY_MS)
      // Marked in the same turn as the choice, so that a call that comes meanwhile waits for a worker.
      tryingHere = true
      try {
        return { value: await here(performance.now() + MAIN_THREAD_BUDGET_MS), where: 'the main thread' }
      } catch (error) {
        if (!(error instanceof DeadlinePassedError)) throw error
      } finally {
        tryingHere = false
      }
    }
    for (let attempt = 0; attempt <= WORKER_RETRIES; attempt++) {
      const remote = send()
      if (remote === undefined) break
      try {
        return { value: fromWorker(await remote), where: 'a worker' }
      } catch (error) {
        if (!(error instanceof WorkerGoneError)) throw error
      }
    }
    return { value: await here(), where: 'the main thread' }
  }

  const runJob = createJobRunner({ ...options, runner })
  async function jobOn(job: Job, view: ExecutionView, timeoutMs?: number): Promise<JobAnswer> {
    const send = () => workers?.job(job, view, timeoutMs)
    // A job (a simulation or a trace) builds its own runs, which keep no deadline: it waits for a worker.
    return (
      await onWorkerOr(
        send,
        ({ value }) => value as JobAnswer,
        () => runJob(job, warmedView(view, jobCall(job), options.warm?.())),
        false,
      )
    ).value
  }

  async function callOn(request: CallRequest, view: ExecutionView): Promise<Uint8Array> {
    const send = () => workers?.run('eth_call', request, view)
    return (
      await onWorkerOr(
        send,
        ({ value }) => value as Uint8Array,
        (deadline) => runner.call(request, warmedView({ ...view, deadline }, request, options.warm?.())),
      )
    ).value
  }

  async function estimateOn(request: CallRequest, view: ExecutionView): Promise<bigint> {
    const send = () => workers?.run('eth_estimateGas', request, view)
    const fromWorker = ({ value, runs }: RemoteAnswer) => ({ gas: value as bigint, runs })
    const here = (deadline?: number) => runner.estimate(request, warmedView({ ...view, deadline }, request, options.warm?.()))
    const { value, where } = await onWorkerOr(send, fromWorker, here)
    debug?.(`eth_estimateGas: ${value.gas} after ${value.runs} EVM runs on ${where}`)
    return value.gas
  }

  return {
    async call(request, resolved, overrides) {
      // Overridden state is a diff over the block's, which a worker rebuilds like a pending one; never cached.
      if (hasOverrides(overrides)) return callOn(request, withOverrides(viewOf(resolved), overrides))
      return (await answers.answer(resolved.block, 'eth_call', request, () => callOn(request, viewOf(resolved)))).value
    },

    async estimateGas(request, resolved, overrides) {
      if (hasOverrides(overrides)) return estimateOn(request, withOverrides(viewOf(resolved), overrides))
      const { value, hit } = await answers.answer(resolved.block, 'eth_estimateGas', request, () => estimateOn(request, viewOf(resolved)))
      if (hit) debug?.(`eth_estimateGas: ${value} from the answer cache`)
      return value
    },

    async estimateSequence(steps, resolved) {
      let view = viewOf(resolved)
      const plans: SequencePlan[] = []
      for (const { request, gas } of steps) {
        let plan: SequencePlan
        try {
          plan = gas !== undefined ? { gas, reverts: false } : { gas: await estimateOn(request, view), reverts: false }
        } catch (error) {
          if (!(error instanceof ExecutionRevertedError)) throw error
          // It will revert whatever its gas: give it what its failing run consumed, with the 1/64 it may forward.
          const hi = runner.ceiling(request, view)
          const { outcome } = await executor.execute(request, hi, view)
          const consumed = outcome.kind === 'invalid' ? hi : ((outcome.gasConsumed + CALL_STIPEND) * 64n) / 63n
          plan = { gas: consumed < hi ? consumed : hi, reverts: true }
        }
        const { outcome, writes } = await executor.execute(request, plan.gas, view)
        if (outcome.kind !== 'success') plan.reverts = true
        plans.push(plan)
        view = { env: view.env, state: createOverlay(writes, view.state) }
      }
      return plans
    },

    view: (resolved, overrides = {}) => withOverrides(viewOf(resolved), overrides),
    runner,

    async createAccessList(request, resolved, overrides) {
      return (await jobOn({ kind: 'accessList', request }, withOverrides(viewOf(resolved), overrides))) as AccessListResult
    },
    job: jobOn,

    startWorkers(size, init, log, timeoutMs, fetch) {
      if (size > 0) workers = createExecutionPool({ size, init, log, timeoutMs, fetch })
    },

    async storageReads(request, resolved) {
      const view = viewOf(resolved)
      const reads = new Map<string, { address: Hex; slot: Hex }>()
      const { state } = view
      // No origin: the reader is not one a worker could rebuild, so the run stays here, where it is watched.
      const watched: StateReader = {
        waits: state.waits,
        account: (address) => state.account(address),
        code: (codeHash) => state.code(codeHash),
        storage(address, slot) {
          reads.set(`${address}${slot}`, { address, slot })
          return state.storage(address, slot)
        },
      }
      await runner.call(request, { env: view.env, state: watched })
      return [...reads.values()]
    },

    get runs() {
      return executor.runs + (workers?.runs ?? 0)
    },

    async close() {
      unfollow()
      await workers?.close()
    },
  }
}

function hasOverrides(overrides: Overrides): boolean {
  return overrides.state !== undefined || overrides.block !== undefined
}
