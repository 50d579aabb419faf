import { MessageChannel, Worker } from 'node:worker_threads'

import type { MessagePort } from 'node:worker_threads'

import { ChainError, ExecutionTimeoutError, fromPortable, toPortable } from '../errors.ts'
import { rememberHexJson } from '../../runtime/encodedJson.ts'
import { WORKER_IDLE_MS, runMessage } from './workerMessages.ts'

import type { BlockEnv } from '../types.ts'
import type { CallRequest, ExecutionView } from './executor.ts'
import type { Job } from './jobs.ts'
import type { CallMethod, FetchRequest, FromWorker, StateRef, ToWorker, WorkerInit } from './workerMessages.ts'
import type { HistoryChange } from '../state/history.ts'
import type { StateReader } from '../state/types.ts'

export type ExecutionPoolOptions = {
  /**
   * Worker threads to run. They start when the first run needs one, not with the pool: a chain that answers no call
   * holds no worker's heap, and its start leaves the second core free.
   */
  size: number
  /** What a new worker starts from: a snapshot of the chain as it is now. */
  init: () => WorkerInit
  log: (line: string) => void
  /**
   * Starts one worker thread, handing it `port`, the worker's end of the channel the pool talks to it through;
   * tests hand in their own to get hold of the threads.
   */
  startWorker?: (init: WorkerInit, port: MessagePort) => Worker
  /** A fork's: what answers a worker's `fetch` (the main thread's upstream state, and its pre-fork block hashes). */
  fetch?: (request: FetchRequest) => Promise<unknown>
  /**
   * A worker sent no run for this long exits, and gives back its heap; the next run starts another (default
   * WORKER_IDLE_MS; 0 keeps workers for good).
   */
  idleMs?: number
  /**
   * A run not answered within this many ms is aborted, as geth's --rpc.evmtimeout does: its worker is stopped (the
   * one way to stop an EVM mid-run), the run fails with geth's "execution aborted (timeout = …)", and the worker's
   * other runs with WorkerGoneError, for the caller to send again. Default none.
   */
  timeoutMs?: number | undefined
}

/** The worker's module, beside this one and in the same form: `.ts` run from the sources, `.js` once compiled (dist/). */
const WORKER_MODULE = import.meta.url.endsWith('.ts') ? new URL('./worker.ts', import.meta.url) : new URL('./worker.js', import.meta.url)

/** The execution worker itself, on its own thread. */
export function startExecutionWorker(init: WorkerInit, port: MessagePort): Worker {
  return new Worker(WORKER_MODULE, {
    workerData: { ...init, port },
    transferList: [port],
    // Bounded like the main thread's (bin/flashchain.js). In interleaved runs 24 MB (8 MB semi-spaces) answered
    // eth_estimateGas and eth_call with 4–11 % less CPU per request than 8 MB, and 48 MB did no better than 8.
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  })
}

/** `value`: what the run answers (ResultMessage). */
export type RemoteAnswer = { value: unknown; runs: number }

/**
 * Worker threads that answer eth_call and eth_estimateGas, and run simulations, traces and access lists (jobs.ts),
 * beside the main thread, each from its own replica of the chain's state (worker.ts). The main thread still parses
 * every request and keeps the answer cache; it runs the EVM itself only for a view no worker can rebuild (one whose
 * state is not built from the chain's history and diffs). Workers start with the first run, and
 * those left idle exit and are started again by the next run, so that a chain at rest holds one heap, not one per
 * core.
 */
export type ExecutionPool = {
  /**
   * Hands the run to the worker with the fewest queued, a ready one before one still starting (whose port holds the
   * run until it listens), or returns undefined when there is no worker, or the view is not one a worker can
   * rebuild. State overrides are a diff over the block's state, sent like a pending state's. Heavy work never falls
   * to the main thread because the workers are busy.
   */
  run(method: CallMethod, request: CallRequest, view: ExecutionView): Promise<RemoteAnswer> | undefined
  /**
   * Hands a job (jobs.ts) to a worker as `run` hands a call, or returns undefined as it does. `timeoutMs`, if given,
   * replaces the pool's timeout for this job (a trace has its own).
   */
  job(job: Job, view: ExecutionView, timeoutMs?: number): Promise<RemoteAnswer> | undefined
  /**
   * Sends every worker a change the main thread's history applied (StateHistory.apply), for its replica to apply in
   * the same order; a worker started later starts from a snapshot that holds it. Call it before anything can read
   * the state the change makes.
   */
  apply(change: HistoryChange): void
  /**
   * Starts workers up to the pool's size, as a run does, without sending one: now, or `afterMs` from now (once; a
   * later call before then changes nothing, and a run that needs a worker starts them at once).
   */
  fill(afterMs?: number): void
  /** Whether a worker has loaded and takes runs now (none has, for a moment after each start). */
  readonly ready: boolean
  /** EVM runs the workers made, answered or failed. */
  readonly runs: number
  /** Worker threads running now, ready or starting, and not told to exit. */
  readonly size: number
  close(): Promise<void>
}

/**
 * Workers in a row that may exit before they load. Past it the pool starts no more, and the caller runs calls on the
 * main thread: a worker that cannot load (a broken install) was otherwise started again at once, 20 times a second.
 */
const FAILED_LOADS = 3
/** Each worker's young generation, MB. */
const WORKER_YOUNG_GENERATION_MB = 24
/** Pending states and environments each worker keeps; the oldest is forgotten first. */
const KEPT_PER_WORKER = 256

type Pending = { resolve: (answer: RemoteAnswer) => void; reject: (error: Error) => void }

type Member = {
  worker: Worker
  /** The pool's end of the channel the worker's runs and answers go through. */
  port: MessagePort
  ready: boolean
  /** Runs sent and not yet answered. */
  inFlight: Map<number, Pending>
  /** What this worker was sent (states and environments), oldest first, with the id it knows them by. */
  known: Map<object, number>
  /** performance.now() when it became ready or was last sent a run. */
  lastRun: number
  /** Told to exit for idleness: not to be replaced until a run needs it. */
  retired: boolean
  /** Timeouts of runs sent before the worker was ready, started once it is. */
  armOnReady: (() => void)[]
  /** Stopped for a run past the timeout: takes no more runs, and is replaced when it exits. */
  stopped: boolean
}

export function createExecutionPool(options: ExecutionPoolOptions): ExecutionPool {
  const { startWorker = startExecutionWorker, idleMs = WORKER_IDLE_MS } = options
  const members: Member[] = []
  let nextId = 1
  let runs = 0
  let closing = false
  /** Workers that exited before they loaded since one last did; at FAILED_LOADS the pool gives up. */
  let failedLoads = 0

  function start(): Member {
    // A channel of its own rather than the Worker's messages, which the Worker object receives from its own port and
    // emits again (and sends through a wrapper): one hop less each way on the main thread.
    const { port1: port, port2 } = new MessageChannel()
    const worker = startWorker(options.init(), port2)
    const member: Member = {
      worker,
      port,
      ready: false,
      inFlight: new Map(),
      known: new Map(),
      lastRun: performance.now(),
      retired: false,
      armOnReady: [],
      stopped: false,
    }
    port.on('message', (message: FromWorker) => {
      if (Array.isArray(message)) {
        const [id, value, runsMade, json] = message
        if (json !== undefined && value instanceof Uint8Array) rememberHexJson(value, json)
        const pending = member.inFlight.get(id)
        if (pending === undefined) return
        member.inFlight.delete(id)
        runs += runsMade
        return pending.resolve({ value, runs: runsMade })
      }
      if (message.kind === 'fetch') return serve(member, message.id, message.request)
      if (message.kind === 'ready') {
        if (message.warmUpFailure !== undefined) options.log(`execution worker: warm-up failed: ${message.warmUpFailure}`)
        member.ready = true
        failedLoads = 0
        member.lastRun = performance.now()
        for (const arm of member.armOnReady.splice(0)) arm()
        return
      }
      const pending = member.inFlight.get(message.id)
      if (pending === undefined) return
      member.inFlight.delete(message.id)
      if (message.kind === 'error') {
        runs += message.runs
        return pending.reject(fromPortable(message.error))
      }
      pending.reject(new Error(`execution worker: ${message.message}`))
    })
    worker.on('error', (error) => options.log(`execution worker failed: ${error.stack ?? error.message}`))
    // The worker keeps the process alive while it runs, as before; its channel does not, and closes with it.
    port.unref()
    worker.once('exit', (code) => {
      port.close()
      const index = members.indexOf(member)
      if (index >= 0) members.splice(index, 1)
      for (const pending of member.inFlight.values()) pending.reject(new WorkerGoneError())
      member.inFlight.clear()
      if (!closing && !member.retired) {
        // One stopped for a timeout was replaced when it was stopped.
        if (member.stopped) return
        if (!member.ready && ++failedLoads === FAILED_LOADS) {
          options.log(`execution worker exited (${code}); ${FAILED_LOADS} in a row exited before they loaded, so calls run on the main thread`)
          return
        }
        if (failedLoads >= FAILED_LOADS) return
        options.log(`execution worker exited (${code}); starting another`)
        members.push(start())
      }
    })
    return member
  }

  /** Answers a worker's fetch; its failure goes back to the run that waits for it. */
  function serve(member: Member, id: number, request: FetchRequest) {
    const fetching = options.fetch?.(request) ?? Promise.reject(new Error('this chain fetches nothing: it is no fork'))
    fetching.then(
      (value) => post(member, { kind: 'fetched', id, value }),
      (error: unknown) => post(member, { kind: 'fetched', id, error: error instanceof ChainError ? toPortable(error) : String(error) }),
    )
  }

  /** Stops the workers that had no run for idleMs; checked every tenth of it, without keeping the process alive. */
  function retireIdle() {
    const now = performance.now()
    for (const member of members) {
      if (!member.ready || member.retired || member.inFlight.size > 0 || now - member.lastRun < idleMs) continue
      member.retired = true
      void member.worker.terminate()
    }
  }
  const idleCheck = idleMs > 0 ? setInterval(retireIdle, idleMs / 10) : undefined
  idleCheck?.unref()

  let filling: NodeJS.Timeout | undefined
  function fill(afterMs?: number) {
    if (afterMs !== undefined) {
      filling ??= setTimeout(fill, afterMs)
      filling.unref()
      return
    }
    clearTimeout(filling)
    filling = undefined
    while (members.filter((member) => !member.stopped).length < options.size && !closing && failedLoads < FAILED_LOADS) members.push(start())
  }

  function post(member: Member, message: ToWorker) {
    member.port.postMessage(message)
  }

  /** The id `member` knows `thing` by, if it was sent; most recently used goes last. */
  function known(member: Member, thing: object): number | undefined {
    const id = member.known.get(thing)
    if (id !== undefined) {
      member.known.delete(thing)
      member.known.set(thing, id)
    }
    return id
  }

  function send(member: Member, thing: object, message: (id: number) => ToWorker): number {
    const id = nextId++
    post(member, message(id))
    member.known.set(thing, id)
    return id
  }

  /** Forgets the least recently used, once the run that needed the newest was posted. */
  function trim(member: Member) {
    while (member.known.size > KEPT_PER_WORKER) {
      const [oldest, id] = member.known.entries().next().value!
      member.known.delete(oldest)
      // A state sent later holds its parent itself, so forgetting the parent's id loses nothing.
      post(member, { kind: 'forget', id })
    }
  }

  /** How `member` finds `state`, or undefined when it is not built from the chain's own history and diffs. */
  function stateRef(member: Member, state: StateReader): StateRef | undefined {
    const origin = state.origin
    if (origin === undefined) return undefined
    if (origin.kind === 'block') return { block: origin.number }
    const id = known(member, state)
    if (id !== undefined) return { id }
    const parent = stateRef(member, origin.parent)
    if (parent === undefined) return undefined
    return { id: send(member, state, (id) => ({ kind: 'state', id, parent, diff: origin.diff })) }
  }

  function envRef(member: Member, env: BlockEnv): number {
    return known(member, env) ?? send(member, env, (id) => ({ kind: 'env', id, env }))
  }

  /**
   * Sends what `message` makes to the least busy worker, on `view`'s state and environment, and settles with its
   * answer; undefined when there is no worker, or the view is not one a worker can rebuild.
   */
  function dispatch(
    view: ExecutionView,
    timeoutMs: number | undefined,
    message: (id: number, state: StateRef, env: number) => ToWorker,
  ): Promise<RemoteAnswer> | undefined {
    // Up to full strength on the first run and after idleness; a worker starting now takes runs once it is ready.
    fill()
    // A ready worker with the fewest runs queued; only when none is ready, one still starting.
    let chosen: Member | undefined
    for (const member of members) {
      if (member.retired || member.stopped) continue
      const better =
        chosen === undefined || (member.ready && !chosen.ready) || (member.ready === chosen.ready && member.inFlight.size < chosen.inFlight.size)
      if (better) chosen = member
    }
    if (chosen === undefined) return undefined
    const member = chosen
    const state = stateRef(member, view.state)
    if (state === undefined) return undefined
    member.lastRun = performance.now()
    const env = envRef(member, view.env)
    const id = nextId++
    const answer = new Promise<RemoteAnswer>((resolve, reject) => {
      let timeout: NodeJS.Timeout | undefined
      // The time counts from when the worker can take the run: one still loading holds it in its port meanwhile.
      const arm = () => {
        if (timeoutMs === undefined || !member.inFlight.has(id)) return
        timeout = setTimeout(() => {
          if (!member.inFlight.has(id)) return
          member.inFlight.delete(id)
          reject(new ExecutionTimeoutError(timeoutMs, 'call'))
          options.log(`execution worker stopped: a run passed the ${timeoutMs} ms timeout`)
          // Replaced at once, so that the next run has a worker to wait for while this one exits.
          member.stopped = true
          if (!closing) members.push(start())
          void member.worker.terminate()
        }, timeoutMs)
        timeout.unref()
      }
      const settle =
        <T>(done: (value: T) => void) =>
        (value: T) => {
          if (timeout !== undefined) clearTimeout(timeout)
          done(value)
        }
      member.inFlight.set(id, { resolve: settle(resolve), reject: settle(reject) })
      if (member.ready) arm()
      else member.armOnReady.push(arm)
      post(member, message(id, state, env))
    })
    trim(member)
    return answer
  }

  return {
    run: (method, request, view) => dispatch(view, options.timeoutMs, (id, state, env) => runMessage(id, method, state, env, request)),

    job: (job, view, timeoutMs = options.timeoutMs) => dispatch(view, timeoutMs, (id, state, env) => ({ kind: 'job', id, job, state, env })),

    apply(change) {
      for (const member of members) post(member, { kind: 'change', change })
    },

    fill: (afterMs) => fill(afterMs),

    get ready() {
      return members.some((member) => member.ready && !member.retired && !member.stopped)
    },

    get runs() {
      return runs
    },

    get size() {
      return members.filter((member) => !member.retired && !member.stopped).length
    },

    async close() {
      closing = true
      clearInterval(idleCheck)
      clearTimeout(filling)
      await Promise.all(members.map((member) => member.worker.terminate()))
      members.length = 0
    },
  }
}

/** A run whose worker exited before it answered; the caller runs it again elsewhere. */
export class WorkerGoneError extends Error {
  constructor() {
    super('the execution worker exited before it answered')
  }
}
