// A worker thread that answers eth_call and eth_estimateGas, and runs simulations, traces and access lists (jobs.ts),
// from a replica of the chain's state, so that EVM work can use a second core and never holds the main thread. The
// main thread (workerPool.ts) starts it with a snapshot of the state history, then sends every change its history
// applies (a block, an edit, a revert), and each pending state and block environment the first time a request needs
// it (workerMessages.ts).
import { workerData } from 'node:worker_threads'

import type { MessagePort } from 'node:worker_threads'

import { ChainError, fromPortable, toPortable } from '../errors.ts'
import { hexJson, LARGE_ANSWER_BYTES } from '../../runtime/encodedJson.ts'
import { startWorkerMemoryTrim } from '../../runtime/memoryTrim.ts'
import { createChainSpec } from '../spec/chainSpec.ts'
import { parseGenesisJsonText } from '../spec/genesis.ts'
import { createRemoteState } from '../fork/remoteState.ts'
import { createStateHistory } from '../state/history.ts'
import { createFetchedOlderState } from '../state/older.ts'
import { createHashList } from '../blocks/hashList.ts'
import { untilFetched } from '../state/miss.ts'
import { createOverlay } from '../state/overlay.ts'
import { createCallRunner } from './callRunner.ts'
import { createJobRunner } from './jobs.ts'
import { cacheJumpAnalysis } from '../ethereumjs/jumpAnalysis.ts'
import { warmUpRunner } from './warmUp.ts'
import { jobCall, warmedView } from './warming.ts'
import { WORKER_IDLE_MS, requestOf, stateRefOf } from './workerMessages.ts'

import type { HistoryChange } from '../state/history.ts'
import type { StateReader } from '../state/types.ts'
import type { BlockEnv } from '../types.ts'
import type { RemoteSource } from '../fork/remoteState.ts'
import type { FetchRequest, FromWorker, JobMessage, RunMessage, StateRef, ToWorker, WorkerInit } from './workerMessages.ts'

const init = workerData as WorkerInit & { port: MessagePort }
const port = init.port
const post = (message: FromWorker) => port.postMessage(message)

/** Answers from this size on are moved to the main thread rather than copied, when they own their memory. */
/**
 * Posts an answer. Large bytes (return data, a trace's JSON) that own their whole buffer go without a copy, and large
 * return data goes with its JSON hex string made here (hexJson), so that the main thread only copies it into the
 * response.
 */
function answer(id: number, value: unknown, runs: number, encode = false) {
  if (!(value instanceof Uint8Array) || value.byteLength < LARGE_ANSWER_BYTES) return post([id, value, runs])
  // A view of a larger buffer (the EVM's memory) is copied out first: posting it would copy the whole buffer.
  const bytes = value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? value : value.slice()
  const json = encode ? hexJson(bytes) : undefined
  const moved = [bytes.buffer, json?.buffer].filter((buffer) => buffer instanceof ArrayBuffer)
  port.postMessage([id, bytes, runs, json] satisfies FromWorker, moved)
}

const { common } = createChainSpec(parseGenesisJsonText(init.genesis), { codeSizeLimit: init.codeSizeLimit })
await cacheJumpAnalysis()

// A fork's upstream state and pre-fork block hashes come from the main thread, which fetches each once for all.
const fetches = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>()
let nextFetch = 0
function fetchFromMain<T>(request: FetchRequest): Promise<T> {
  const id = ++nextFetch
  return new Promise<T>((resolve, reject) => {
    fetches.set(id, { resolve: resolve as (value: unknown) => void, reject })
    post({ kind: 'fetch', id, request })
  })
}
const mainThread: RemoteSource = {
  account: (address) => fetchFromMain(['account', address]),
  storage: (address, slot) => fetchFromMain(['storage', address, slot]),
  code: (codeHash) => fetchFromMain(['code', codeHash]),
  warm: (call, missed) => fetchFromMain(['warm', call, missed]),
}
const upstream = () => (init.fork ? createRemoteState(mainThread) : undefined)
/** A fork's upstream state beneath the history, which a run's warming fills (state/miss.ts warmingReads). */
let remote = upstream()

// Blocks before the horizon of a chain loaded from its store are the store's, which the main thread reads.
const history = createStateHistory(init.history, remote, createFetchedOlderState(fetchFromMain))
/** Block hashes from `first` on; undefined from a fork's reset until its first block comes. */
const blockHashes = createHashList(init.blockHashes)
let first: bigint | undefined = init.firstBlock
const blockHash = (number: bigint) => {
  if (first !== undefined && number >= first) return number - first < blockHashes.length ? blockHashes.at(Number(number - first)) : undefined
  return init.fork ? fetchFromMain<Uint8Array | undefined>(['blockHash', number]) : undefined
}
const runner = await createCallRunner({ common, blockHashes: blockHash, rpcGasCap: init.rpcGasCap })

const runJob = createJobRunner({
  common,
  blockHashes: blockHash,
  history,
  rpcGasCap: init.rpcGasCap,
  runner,
  traceMaxBytes: init.traceMaxBytes,
})

const states = new Map<number, StateReader>()
const envs = new Map<number, BlockEnv>()

function stateOf(ref: StateRef): StateReader {
  if ('block' in ref) return history.at(ref.block)
  const state = states.get(ref.id)
  if (state === undefined) throw new Error(`state ${ref.id} was never sent, or already forgotten`)
  return state
}

async function run(message: RunMessage) {
  const [id, method, , envId] = message
  let runs = 1
  try {
    const env = envs.get(envId)
    if (env === undefined) throw new Error(`environment ${envId} was never sent, or already forgotten`)
    const request = requestOf(message)
    const view = warmedView({ env, state: stateOf(stateRefOf(message)) }, request, remote?.warm)
    // A run that read a fork's upstream state not fetched yet runs again once it is here (state/miss.ts).
    if (method === 'eth_call') {
      answer(id, await untilFetched(() => runner.call(request, view)), runs, true)
    } else {
      const estimate = await untilFetched(() => runner.estimate(request, view))
      runs = estimate.runs
      answer(id, estimate.gas, runs)
    }
  } catch (error) {
    reply(id, error, runs)
  }
}

async function job(message: JobMessage) {
  const { id } = message
  try {
    const env = envs.get(message.env)
    if (env === undefined) throw new Error(`environment ${message.env} was never sent, or already forgotten`)
    const view = warmedView({ env, state: stateOf(message.state) }, jobCall(message.job), remote?.warm)
    answer(id, await untilFetched(() => runJob(message.job, view)), 1)
  } catch (error) {
    reply(id, error, 1)
  }
}

function reply(id: number, error: unknown, runs: number) {
  if (error instanceof ChainError) post({ kind: 'error', id, error: toPortable(error), runs })
  else post({ kind: 'failure', id, message: error instanceof Error ? (error.stack ?? error.message) : String(error) })
}

/** Applies a change as the main thread's history applied it; the block hashes follow the blocks. */
function follow(change: HistoryChange) {
  history.apply(change)
  switch (change.kind) {
    case 'block':
      first ??= change.number
      blockHashes.truncate(Number(change.number - first))
      blockHashes.push(change.hash)
      break
    case 'rewind':
      blockHashes.truncate(first === undefined ? 0 : Math.max(0, Number(change.number - first) + 1))
      break
    case 'edit':
      break
    // A fork reset to another fork block: a copy of the new fork point's state, whose first block comes next.
    case 'upstream':
      remote = upstream()!
      history.setUpstream(remote)
      blockHashes.truncate(0)
      first = undefined
      break
    default:
      // A new kind of change fails to compile here until it says what it does to the block hashes.
      change satisfies never
  }
}

// Before the first message is read: the main thread answers alone until this worker says it is ready, and every
// message sent meanwhile waits on the port.
const warmUpFailure = await warmUpRunner(runner).then(
  () => undefined,
  (error: unknown) => (error instanceof Error ? (error.stack ?? error.message) : String(error)),
)

port.on('message', (message: ToWorker) => {
  if (Array.isArray(message)) return void run(message)
  switch (message.kind) {
    case 'job':
      void job(message)
      break
    case 'change':
      follow(message.change)
      break
    case 'state':
      states.set(message.id, createOverlay(message.diff, stateOf(message.parent)))
      break
    case 'env':
      envs.set(message.id, message.env)
      break
    case 'forget':
      states.delete(message.id)
      envs.delete(message.id)
      break
    case 'fetched': {
      const waiting = fetches.get(message.id)
      fetches.delete(message.id)
      if ('value' in message) waiting?.resolve(message.value)
      else waiting?.reject(typeof message.error === 'string' ? new Error(message.error) : fromPortable(message.error))
      break
    }
  }
})
// Gives back what a load grew this thread's heap to, a few seconds after its runs stop (memoryTrim.ts).
startWorkerMemoryTrim(WORKER_IDLE_MS)
post({ kind: 'ready', warmUpFailure })
