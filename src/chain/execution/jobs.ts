import { NotFoundError } from '../errors.ts'
import { createForks } from '../spec/forks.ts'
import { createAccessList } from './accessList.ts'
import { createEnvBlock, createHeaderBlock } from './executor.ts'
import { simulateBlocks } from './simulateBlocks.ts'
import { createTraceRunner, traceTooLarge } from './tracing/trace.ts'

import type { Common } from '@ethereumjs/common'
import type { StateHistory } from '../state/history.ts'
import type { AccessListResult, SimulatedBlock } from '../types.ts'
import type { CallRunner } from './callRunner.ts'
import type { BlockHashes, CallRequest, ExecutionView } from './executor.ts'
import type { SimulationRequest } from './simulateBlocks.ts'
import type { ReplaySource, TraceOptions } from './tracing/trace.ts'

/**
 * Work heavier than one call, as plain data, so that an execution worker can take it (worker.ts) and the main thread
 * runs the same code when there is none. Each runs on the view it is sent with: a simulation on its base block's
 * environment and state, a traced call or an access list on the call's (overrides applied), a replay on the block's
 * environment and the state before the block.
 */
export type Job =
  /** eth_simulateV1; `base`: the base block's header RLP, none for the pending block (made from the environment). */
  | { kind: 'simulate'; request: SimulationRequest; base?: Uint8Array }
  | { kind: 'traceCall'; request: CallRequest; options: TraceOptions }
  /** Transactions `first`…`last` of a block; `one`: the first's trace alone (debug_traceTransaction). */
  | { kind: 'traceBlock'; source: ReplaySource; first: number; last: number; one: boolean; options: TraceOptions }
  | { kind: 'accessList'; request: CallRequest }

/**
 * A job's answer. A trace's is its JSON text in UTF-8, made where the trace ran: it is the largest answer there is, and the
 * main thread then sends it as it is instead of copying and encoding a tree of objects (EncodedJson).
 */
export type JobAnswer = SimulatedBlock[] | Uint8Array | AccessListResult

export type JobHost = {
  common: Common
  blockHashes: BlockHashes
  history: StateHistory
  rpcGasCap: bigint
  runner: CallRunner
  /** The most bytes a trace's JSON may take. */
  traceMaxBytes: number
}

const utf8 = new TextEncoder()

export type JobRunner = (job: Job, view: ExecutionView) => Promise<JobAnswer>

export function createJobRunner(host: JobHost): JobRunner {
  const { common, traceMaxBytes } = host
  const forks = createForks(common)
  const traces = createTraceRunner({ common, blockHashes: host.blockHashes, runner: host.runner, maxBytes: traceMaxBytes })
  const simulation = { ...host, txGasCap: (env: { number: bigint; timestamp: bigint }) => forks.txGasCap(env) }

  /** The answer's JSON, refused when it is larger than the limit (a tracer whose size is not counted as it runs). */
  function encode(answer: unknown): Uint8Array {
    // An array of its own, which the worker hands over to the main thread rather than copying (worker.ts).
    const json = utf8.encode(JSON.stringify(answer))
    if (json.byteLength > traceMaxBytes) throw traceTooLarge(traceMaxBytes)
    return json
  }

  return async (job, view) => {
    switch (job.kind) {
      case 'simulate': {
        const block = job.base === undefined ? createEnvBlock(view.env, common, view.env.baseFeePerGas) : createHeaderBlock(job.base, common)
        return simulateBlocks(simulation, { block, state: view.state }, job.request)
      }
      case 'traceCall':
        return encode(await traces.call(job.request, view, job.options))
      case 'traceBlock': {
        const results = await traces.replay(job.source, view, job.first, job.last, job.options)
        if (!job.one) return encode(results)
        if (results.length === 0) throw new NotFoundError('transaction not found')
        return encode(results[0]!.result)
      }
      case 'accessList':
        return createAccessList(host.runner, common, job.request, view)
    }
  }
}
