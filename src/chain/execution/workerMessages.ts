// What the main thread (workerPool.ts) and an execution worker (worker.ts) send each other. One port
// carries it all in order, so a run never arrives before the state it reads.
//
// Two kinds of state reach a worker. The chain's history reaches it as one kind of message, `change`: every change
// the main thread's StateHistory applies (a block's writes, an edit's, a revert's), forwarded as it was applied, so
// the replica cannot miss a kind of change the history has. Pending states and block environments (`state`, `env`,
// `forget`) are not history: they belong to requests, are sent the first time a run needs them, and are forgotten
// when the worker has kept too many.
import { CALL_REQUEST_FIELDS } from './executor.ts'

import type { PortableError } from '../errors.ts'
import type { CodeSizeLimit } from '../spec/forks.ts'
import type { BlockEnv } from '../types.ts'
import type { CallRequest } from './executor.ts'
import type { Job } from './jobs.ts'
import type { HistoryChange, HistorySnapshot } from '../state/history.ts'
import type { OlderRequest } from '../state/older.ts'
import type { WarmCall } from '../fork/upstream.ts'
import type { StateDiff } from '../state/types.ts'
import type { Hex } from '../../hex.ts'

/** What a worker starts from: a snapshot of the chain as it is when the worker starts. */
export type WorkerInit = {
  /** The genesis JSON the chain was created from, as stored. */
  genesis: string
  history: HistorySnapshot
  /** Block hashes by number from `firstBlock` on, for BLOCKHASH: 32 bytes each, packed (blocks/hashList.ts). */
  blockHashes: Uint8Array
  /** The first block the chain holds: 0, or a fork's fork block. */
  firstBlock: bigint
  /**
   * The chain is a fork: the state beneath the history, and the hashes of the blocks before the first, are the main
   * thread's to fetch (a `fetch` message), which shares its fetches with every thread.
   */
  fork: boolean
  rpcGasCap: bigint
  /** The most bytes a trace's answer may take (TRACE_MAX_BYTES unless configured). */
  traceMaxBytes: number
  /** The chain's code size limit (createChainSpec), if it has another than EIP-170's. */
  codeSizeLimit?: CodeSizeLimit
}

/**
 * ms without a run after which a worker exits. A worker costs about 60 MB at rest (measured: 127 MB resident with
 * none, 185 with one) and starts again in about half a second, during which the main thread answers alone.
 */
export const WORKER_IDLE_MS = 10_000

/** A state a request reads: a sealed block's, or one the worker was sent. */
export type StateRef = { block: bigint } | { id: number }

export type CallMethod = 'eth_call' | 'eth_estimateGas'

export type ToWorker =
  /** A change the main thread's history applied, for the replica to apply in the same order (StateHistory.apply). */
  | { kind: 'change'; change: HistoryChange }
  /** A pending or overridden state a run reads: `diff` over `parent`. Request-scoped, not history. */
  | { kind: 'state'; id: number; parent: StateRef; diff: StateDiff }
  | { kind: 'env'; id: number; env: BlockEnv }
  | { kind: 'forget'; id: number }
  | RunMessage
  | JobMessage
  /** The answer to a worker's `fetch`: the value, or the failure (a ChainError portable, else its message). */
  | { kind: 'fetched'; id: number; value: unknown }
  | { kind: 'fetched'; id: number; error: PortableError | string }

/**
 * What a worker asks the main thread for: a fork's upstream account, slot or code, or a pre-fork block's hash; or a
 * key's value at a block before the history's horizon, which only the main thread's store holds (state/older.ts).
 */
export type FetchRequest =
  | ['account', Hex]
  | ['storage', Hex, Hex]
  | ['code', Hex]
  | ['warm', WarmCall, string | undefined]
  | ['blockHash', bigint]
  | OlderRequest

/**
 * Work heavier than one call (a simulation, a trace, an access list), on a state and an environment sent before.
 * Sent as an object: these are rare, and their inputs are nested (see jobs.ts).
 */
export type JobMessage = { kind: 'job'; id: number; job: Job; state: StateRef; env: number }

/**
 * One eth_call or eth_estimateGas, sent for every such request. It is a flat array of primitives because the
 * structured clone of one costs about half what the same fields as nested objects do: a round trip of an ERC20
 * estimate's run and result took 3.4 µs of CPU against 5.1 (both threads, 8 in flight). The state is a sealed
 * block's number (a bigint) or the id of a state sent before (a number); the request's fields follow in
 * CALL_REQUEST_FIELDS order, without the undefined ones at the end.
 */
export type RunMessage = [id: number, method: CallMethod, state: bigint | number, env: number, ...request: unknown[]]

export type FromWorker =
  /** `warmUpFailure`: why the warm-up (warmUp.ts) failed, if it did; the worker serves all the same. */
  | { kind: 'ready'; warmUpFailure?: string }
  /** A run's answer, flat like the run (RunMessage). */
  | ResultMessage
  /** An answer that is an error (a revert, insufficient funds …): the ChainError, portable. */
  | { kind: 'error'; id: number; error: PortableError; runs: number }
  /** Anything else thrown: a bug, reported as an internal error. */
  | { kind: 'failure'; id: number; message: string }
  /** State a run misses (FetchRequest): answered with `fetched`. */
  | { kind: 'fetch'; id: number; request: FetchRequest }

/** `value`: a call's return data, an estimate's gas, or a job's answer (JobAnswer). */
/** `json`: a large eth_call's return data already encoded as its JSON hex string (hexJson), made on the worker. */
export type ResultMessage = [id: number, value: unknown, runs: number, json?: Uint8Array]

export function runMessage(id: number, method: CallMethod, state: StateRef, env: number, request: CallRequest): RunMessage {
  const message: RunMessage = [id, method, 'block' in state ? state.block : state.id, env]
  let last = -1
  for (let i = 0; i < CALL_REQUEST_FIELDS.length; i++) if (request[CALL_REQUEST_FIELDS[i]!] !== undefined) last = i
  for (let i = 0; i <= last; i++) message.push(request[CALL_REQUEST_FIELDS[i]!])
  return message
}

/** The request a RunMessage carries: the fields it was given, and no others (`to: null` stays null). */
export function requestOf(message: RunMessage): CallRequest {
  const request: Record<string, unknown> = {}
  for (let i = 4; i < message.length; i++) {
    const value = message[i]
    if (value !== undefined) request[CALL_REQUEST_FIELDS[i - 4]!] = value
  }
  return request as CallRequest
}

export function stateRefOf(message: RunMessage): StateRef {
  const state = message[2]
  return typeof state === 'bigint' ? { block: state } : { id: state }
}
