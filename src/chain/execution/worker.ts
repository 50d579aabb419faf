// A worker thread that answers eth_call and eth_estimateGas, and runs simulations, traces and access lists (jobs.ts),
// from a replica of the chain's state, so that EVM work can use a second core and never holds the main thread. The
// main thread (workerPool.ts) starts it with a snapshot of the state history, then sends every change its history
// applies (a block, an edit, a revert), and each pending state and block environment the first time a request needs
// it (workerMessages.ts).
import { workerData } from 'node:worker_threads'

import type { MessagePort } from 'node:worker_threads'

import { ChainError, toPortable } from '../errors.ts'
import { hexJson, LARGE_ANSWER_BYTES } from '../../runtime/encodedJson.ts'
import { startWorkerMemoryTrim } from '../../runtime/memoryTrim.ts'
import { createChainSpec } from '../spec/chainSpec.ts'
import { parseGenesisJsonText } from '../spec/genesis.ts'
import { createStateHistory } from '../state/history.ts'
import { createOverlay } from '../state/overlay.ts'
import { createCallRunner } from './callRunner.ts'
import { createJobRunner } from './jobs.ts'
import { cacheJumpAnalysis } from '../ethereumjs/jumpAnalysis.ts'
import { WORKER_IDLE_MS, requestOf, stateRefOf } from './workerMessages.ts'

import type { HistoryChange } from '../state/history.ts'
import type { StateReader } from '../state/types.ts'
import type { BlockEnv } from '../types.ts'
import type { FromWorker, JobMessage, RunMessage, StateRef, ToWorker, WorkerInit } from './workerMessages.ts'

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
const history = createStateHistory(init.history)
const blockHashes = init.blockHashes
const runner = await createCallRunner({
  common,
  blockHashes: (number) => blockHashes[Number(number)],
  rpcGasCap: init.rpcGasCap,
})

const runJob = createJobRunner({
  common,
  blockHashes: (number) => blockHashes[Number(number)],
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
    const view = { env, state: stateOf(stateRefOf(message)) }
    const request = requestOf(message)
    if (method === 'eth_call') {
      answer(id, await runner.call(request, view), runs, true)
    } else {
      const estimate = await runner.estimate(request, view)
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
    answer(id, await runJob(message.job, { env, state: stateOf(message.state) }), 1)
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
      blockHashes[Number(change.number)] = change.hash
      break
    case 'rewind':
      blockHashes.length = Number(change.number) + 1
      break
    case 'edit':
      break
    default:
      // A new kind of change fails to compile here until it says what it does to the block hashes.
      change satisfies never
  }
}

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
  }
})
// Gives back what a load grew this thread's heap to, a few seconds after its runs stop (memoryTrim.ts).
startWorkerMemoryTrim(WORKER_IDLE_MS)
post({ kind: 'ready' })
