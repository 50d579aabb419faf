import { NotFoundError, RefusedError } from '../errors.ts'
import { pendingIndexOf } from '../blocks/types.ts'
import { DEFAULT_TRACE_TIMEOUT_MS, replaySourceOf } from '../execution/tracing/trace.ts'
import { EncodedJson } from '../../runtime/encodedJson.ts'

import type { SealedBlocks } from '../blocks/sealedBlocks.ts'
import type { BlockResolver, ResolvedBlock } from '../blocks/tags.ts'
import type { PendingSnapshot } from '../blocks/types.ts'
import type { Calls } from '../execution/calls.ts'
import type { CallRequest } from '../execution/executor.ts'
import type { Overrides } from '../execution/overrides.ts'
import type { SimulationRequest } from '../execution/simulateBlocks.ts'
import type { TraceOptions } from '../execution/tracing/trace.ts'
import type { StateHistory } from '../state/history.ts'
import type { Hex } from '../../hex.ts'
import type { AccessListResult, BlockSpecifier, SequencePlan, SimulatedBlock } from '../types.ts'

export type CallsParts = {
  calls: Calls
  resolver: BlockResolver
  blocks: SealedBlocks
  history: StateHistory
  pending: () => PendingSnapshot
}

/** EVM runs on any block that keep nothing: calls, estimates, simulations, access lists and traces. */
export type CallsService = {
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
  /** EVM runs made by calls and estimates so far (a debug figure). */
  readonly executionRuns: number
}

export function createCallsService(parts: CallsParts): CallsService {
  const { calls, resolver, blocks, history, pending } = parts
  const resolve = (specifier: BlockSpecifier) => resolver.resolve(specifier)

  return {
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
      const resolved = resolver.resolveIfAny(specifier)
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
    get executionRuns() {
      return calls.runs
    },
  }

  /** Transactions `first`…`last` of a block traced on a worker; `one`: the first's trace alone. */
  async function trace(resolved: ResolvedBlock, first: number, last: number, one: boolean, traceOptions: TraceOptions): Promise<EncodedJson> {
    const { source, view } = replaySourceOf(resolved, { history, head: () => blocks.head().number })
    const job = { kind: 'traceBlock', source, first, last, one, options: traceOptions } as const
    return new EncodedJson((await calls.job(job, view, traceTimeout(traceOptions))) as Uint8Array)
  }
}

/**
 * How long a trace's worker may take before it is stopped: the trace's own timeout, which the worker answers itself,
 * and a second more, for a trace that hangs between steps.
 */
function traceTimeout(options: TraceOptions): number {
  return (options.timeoutMs ?? DEFAULT_TRACE_TIMEOUT_MS) + 1_000
}
