// A worker thread that answers eth_call and eth_estimateGas from a replica of the chain's state, so that EVM work
// can use a second core. The main thread (executionPool.ts) starts it with a snapshot of the state history, then
// sends every sealed block, and each pending state and block environment the first time a request needs it. One
// port carries all of it in order, so a request never arrives before the state it reads.
import { parentPort, workerData } from 'node:worker_threads'

import { RpcError, toPortable } from '../errors.ts'
import { startWorkerMemoryTrim } from '../memoryTrim.ts'
import { createCallRunner } from './calls.ts'
import { mergeParamsOnce } from './common.ts'
import { WORKER_IDLE_MS } from './executionPool.ts'
import { parseGenesisJsonText, parseGethGenesis } from './genesis.ts'
import { cacheJumpAnalysis } from './jumpAnalysis.ts'
import { keccak256 } from './keccak.ts'
import { createLazyKZG } from './kzg.ts'
import { nativeEcrecover } from './secp256k1.ts'
import { createStateHistory } from './state/history.ts'
import { createOverlay } from './state/overlay.ts'

import type { PortableRpcError } from '../errors.ts'
import type { BlockEnv } from './blocks.ts'
import type { CallRequest } from './execution.ts'
import type { HistorySnapshot } from './state/history.ts'
import type { StateDiff, StateReader } from './state/types.ts'

export type WorkerInit = {
  /** The genesis JSON the chain was created from, as stored. */
  genesis: string
  history: HistorySnapshot
  /** Block hashes by number, for BLOCKHASH. */
  blockHashes: Uint8Array[]
  rpcGasCap: bigint
  revertCode: number
}

/** A state a request reads: a sealed block's, or one the worker was sent. */
export type StateRef = { block: bigint } | { id: number }

export type CallMethod = 'eth_call' | 'eth_estimateGas'

export type ToWorker =
  | { kind: 'block'; number: bigint; hash: Uint8Array; diff: StateDiff }
  | { kind: 'state'; id: number; parent: StateRef; diff: StateDiff }
  | { kind: 'env'; id: number; env: BlockEnv }
  | { kind: 'forget'; id: number }
  | { kind: 'run'; id: number; method: CallMethod; request: CallRequest; state: StateRef; env: number }

export type FromWorker =
  | { kind: 'ready' }
  | { kind: 'result'; id: number; value: Uint8Array | bigint; runs: number }
  /** An answer that is an error (a revert, insufficient funds …): the RpcError's wire form. */
  | { kind: 'error'; id: number; error: PortableRpcError; runs: number }
  /** Anything else thrown: a bug, reported as an internal error. */
  | { kind: 'failure'; id: number; message: string }

const init = workerData as WorkerInit
const port = parentPort!
const post = (message: FromWorker) => port.postMessage(message)

const spec = parseGethGenesis(parseGenesisJsonText(init.genesis), {
  customCrypto: { kzg: createLazyKZG(), ecrecover: nativeEcrecover(), keccak256 },
})
const common = mergeParamsOnce(spec.common)
await cacheJumpAnalysis()
const history = createStateHistory(init.history)
const blockHashes = init.blockHashes
const runner = await createCallRunner({
  common,
  blockHashes: (number) => blockHashes[Number(number)],
  rpcGasCap: init.rpcGasCap,
  revertCode: init.revertCode,
})

const states = new Map<number, StateReader>()
const envs = new Map<number, BlockEnv>()

function stateOf(ref: StateRef): StateReader {
  if ('block' in ref) return history.at(ref.block)
  const state = states.get(ref.id)
  if (state === undefined) throw new Error(`state ${ref.id} was never sent, or already forgotten`)
  return state
}

async function run(message: Extract<ToWorker, { kind: 'run' }>) {
  let runs = 1
  try {
    const env = envs.get(message.env)
    if (env === undefined) throw new Error(`environment ${message.env} was never sent, or already forgotten`)
    const view = { env, state: stateOf(message.state) }
    if (message.method === 'eth_call') {
      post({ kind: 'result', id: message.id, value: await runner.call(message.request, view), runs })
    } else {
      const estimate = await runner.estimate(message.request, view)
      runs = estimate.runs
      post({ kind: 'result', id: message.id, value: estimate.gas, runs })
    }
  } catch (error) {
    if (error instanceof RpcError) post({ kind: 'error', id: message.id, error: toPortable(error), runs })
    else post({ kind: 'failure', id: message.id, message: error instanceof Error ? (error.stack ?? error.message) : String(error) })
  }
}

port.on('message', (message: ToWorker) => {
  switch (message.kind) {
    case 'block':
      history.commit(message.number, message.diff)
      blockHashes[Number(message.number)] = message.hash
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
    case 'run':
      void run(message)
      break
  }
})
// Gives back what a load grew this thread's heap to, a few seconds after its runs stop (memoryTrim.ts).
startWorkerMemoryTrim(WORKER_IDLE_MS)
post({ kind: 'ready' })
