import { getActivePrecompiles } from '@ethereumjs/evm'
import { createTxFromRLP } from '@ethereumjs/tx'
import { bytesToHex, createAddressFromString, createContractAddress, eoaCode7702RecoverAuthority } from '@ethereumjs/util'

import { decodeTransaction } from '../../opstack/decode.ts'
import { DEPOSIT_TX_TYPE } from '../../opstack/deposit.ts'
import { ExecutionTimeoutError, LimitExceededError, NotFoundError, RefusedError } from '../../errors.ts'
import { headerEnv } from '../../blocks/env.ts'
import { invalidCallError } from '../../gethErrors.ts'
import { createEnvBlock, createHeaderBlock, setHardforkFor } from '../executor.ts'
import { requireValueCovered } from '../callRunner.ts'
import { createCallTracer } from './callTracer.ts'
import { createPrestateTracer } from './prestateTracer.ts'
import { replayBlock } from './replay.ts'
import { createFourByteTracer, createNoopTracer } from './simpleTracers.ts'
import { createStructLogger } from './structLogger.ts'

import type { Common } from '@ethereumjs/common'
import type { InterpreterStep } from '@ethereumjs/evm'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { ResolvedBlock } from '../../blocks/tags.ts'
import type { StateHistory } from '../../state/history.ts'
import type { BlockEnv } from '../../types.ts'
import type { CallRunner } from '../callRunner.ts'
import type { BlockHashes, CallRequest, ExecutionHooks, ExecutionView } from '../executor.ts'
import type { ReplayBlock, ReplayedTransaction } from './replay.ts'
import type { StructLoggerOptions } from './structLogger.ts'
import type { TraceStart, Tracer, TracerConfig } from './tracer.ts'
import type { Hex } from '../../../hex.ts'

/** What a trace request asks for: geth's TraceConfig. */
export type TraceOptions = StructLoggerOptions & {
  /** A named tracer; the struct logger when absent. */
  tracer?: string
  tracerConfig?: TracerConfig
  /** How long one transaction's trace may run before it is abandoned. */
  timeoutMs?: number
}

/** geth's default: no trace runs longer than this. */
export const DEFAULT_TRACE_TIMEOUT_MS = 5_000
/** Steps between turns of the event loop, so that other runs on the same thread are taken up while a long trace runs. */
const STEPS_PER_TURN = 1024

const TRACERS: Record<string, (start: TraceStart, config: TracerConfig) => Tracer> = {
  callTracer: createCallTracer,
  prestateTracer: createPrestateTracer,
  '4byteTracer': createFourByteTracer,
  noopTracer: createNoopTracer,
}

/** The names a request may give as `tracer`. */
export const TRACER_NAMES = Object.keys(TRACERS)

/** Why a trace stopped before its transaction ended; the step listener throws it to stop the EVM there. */
class TraceStopped extends Error {
  readonly answer: TraceStop
  constructor(answer: TraceStop) {
    super(answer.message)
    this.answer = answer
  }
}

/** Why a trace was stopped before its transaction ended. */
type TraceStop = ExecutionTimeoutError | LimitExceededError

/** A trace whose answer outgrows `maxBytes`, with what narrows it. */
export function traceTooLarge(maxBytes: number): LimitExceededError {
  return new LimitExceededError(
    `trace result exceeds ${maxBytes} bytes (--trace-max-bytes); narrow it with "limit", "disableStack": true or "enableMemory": false, or trace one transaction`,
    'traceSize',
  )
}

/**
 * The tracer's hooks, with the timeout and the size of the answer so far checked before each step, and the event loop
 * given a turn every so many: an endless loop costs its timeout and no more, and a trace that outgrows `maxBytes`
 * stops there instead of filling the heap. `stopped()` tells why a run was stopped, if it was.
 */
function guarded(tracer: Tracer, timeoutMs: number, maxBytes: number): { hooks: ExecutionHooks; stopped: () => TraceStop | undefined } {
  const { hooks } = tracer
  const deadline = performance.now() + timeoutMs
  let steps = 0
  let reason: TraceStop | undefined
  const inner = hooks.step
  const waits = inner !== undefined && inner.length >= 2
  function stop(answer: TraceStop): never {
    reason = answer
    throw new TraceStopped(answer)
  }
  function step(data: InterpreterStep, resolve?: () => void) {
    if (performance.now() > deadline) stop(new ExecutionTimeoutError(timeoutMs, 'trace'))
    if (tracer.size !== undefined && tracer.size() > maxBytes) stop(traceTooLarge(maxBytes))
    const done = ++steps % STEPS_PER_TURN === 0 ? () => setImmediate(resolve!) : resolve!
    if (inner === undefined) return done()
    if (waits) return inner(data, done)
    inner(data)
    done()
  }
  return { hooks: { ...hooks, step }, stopped: () => reason }
}

function createTracer(options: TraceOptions, start: TraceStart): Tracer {
  if (options.tracer === undefined) return createStructLogger(options)
  const factory = TRACERS[options.tracer]
  if (factory === undefined) throw new NotFoundError(`tracer ${JSON.stringify(options.tracer)} not found; available: ${TRACER_NAMES.join(', ')}`)
  return factory(start, options.tracerConfig ?? {})
}

/** A block's transactions traced in order: each transaction's hash and its tracer's answer. */
export type BlockTrace = { txHash: Hex; result: unknown }[]

/**
 * A block to replay, as plain data an execution worker can take: its header's RLP (none for the pending block, whose
 * header is made from its environment), and its transactions' canonical encodings with their senders, which an
 * impersonated transaction cannot recover from its signature. The environment and the state before the block go
 * beside it, as a view.
 */
export type ReplaySource = { header?: Uint8Array; transactions: Uint8Array[]; senders: Hex[] }

/** What a trace of `resolved`'s transactions needs: its source and the view it replays on (its env, its parent's state). */
export function replaySourceOf(
  resolved: ResolvedBlock,
  host: { history: StateHistory; head: () => bigint },
): { source: ReplaySource; view: ExecutionView } {
  if (resolved.kind === 'pending') {
    const snapshot = resolved.block
    return {
      source: { transactions: snapshot.transactions.map((tx) => tx.serialize()), senders: [...snapshot.senders] },
      view: { env: snapshot.env, state: host.history.at(host.head()) },
    }
  }
  const sealed = resolved.block
  if (sealed.number === 0n) throw new RefusedError('genesis is not traceable')
  return {
    source: {
      header: sealed.block.header.serialize(),
      transactions: sealed.block.transactions.map((tx) => tx.serialize()),
      senders: [...sealed.senders],
    },
    view: { env: headerEnv(sealed.block), state: host.history.at(sealed.number - 1n) },
  }
}

/** Runs traces: replays of a block's transactions, and calls, each with a tracer of its own. */
export type TraceRunner = {
  /** Transactions `first`…`last` of a block, with their hashes. */
  replay(source: ReplaySource, view: ExecutionView, first: number, last: number, options: TraceOptions): Promise<BlockTrace>
  /** A call on a block's state (after the block), as eth_call runs it. */
  call(request: CallRequest, view: ExecutionView, options: TraceOptions): Promise<unknown>
}

export function createTraceRunner(host: { common: Common; blockHashes: BlockHashes; runner: CallRunner; maxBytes: number }): TraceRunner {
  const { common, maxBytes } = host

  function rulesAt(env: BlockEnv): Common {
    const rules = common.copy()
    setHardforkFor(rules, env)
    return rules
  }

  function precompilesAt(env: BlockEnv): Set<Hex> {
    return new Set([...getActivePrecompiles(rulesAt(env)).keys()].map((address) => `0x${address}` as Hex))
  }

  function startOf(tx: TypedTransaction, env: BlockEnv, precompiles: ReadonlySet<Hex>): TraceStart {
    const from = tx.getSenderAddress()
    const authorities: Hex[] = []
    for (const item of (tx as { authorizationList?: Uint8Array[][] }).authorizationList ?? []) {
      try {
        authorities.push(eoaCode7702RecoverAuthority(item as Parameters<typeof eoaCode7702RecoverAuthority>[0]).toString() as Hex)
      } catch {
        // An authorization that does not recover is skipped by the transaction too.
      }
    }
    return {
      type: tx.to === undefined ? 'CREATE' : 'CALL',
      from: from.toString() as Hex,
      to: (tx.to ?? createContractAddress(from, tx.nonce)).toString() as Hex,
      input: tx.data,
      value: tx.value,
      gas: tx.gasLimit,
      coinbase: env.coinbase,
      precompiles,
      authorities,
    }
  }

  /** The block again, from its source: the header runTx reads, and each transaction from the sender it was sent by. */
  function replayBlockOf(source: ReplaySource, view: ExecutionView): ReplayBlock {
    const rules = rulesAt(view.env)
    const header = source.header === undefined ? createEnvBlock(view.env, rules, view.env.baseFeePerGas) : createHeaderBlock(source.header, common)
    const transactions = source.transactions.map((raw, i) => {
      const tx = raw[0] === DEPOSIT_TX_TYPE ? decodeTransaction(raw, rules) : createTxFromRLP(raw, { common: rules, freeze: false })
      const sender = createAddressFromString(source.senders[i]!)
      tx.getSenderAddress = () => sender
      return tx
    })
    return { env: view.env, header, transactions, parent: view.state }
  }

  return {
    async replay(source, view, first, last, options) {
      const block = replayBlockOf(source, view)
      const precompiles = precompilesAt(block.env)
      const tracers: Tracer[] = []
      const results: BlockTrace = []
      const timeoutMs = options.timeoutMs ?? DEFAULT_TRACE_TIMEOUT_MS
      let stopped: (() => TraceStop | undefined) | undefined
      try {
        await replayBlock(block, {
          common,
          blockHashes: host.blockHashes,
          last,
          hooksFor(index) {
            if (index < first) return undefined
            const tracer = createTracer(options, startOf(block.transactions[index]!, block.env, precompiles))
            tracers[index] = tracer
            const run = guarded(tracer, timeoutMs, maxBytes)
            stopped = run.stopped
            return run.hooks
          },
          onResult(index, result: ReplayedTransaction) {
            if (index >= first) {
              results.push({ txHash: bytesToHex(block.transactions[index]!.hash()) as Hex, result: tracers[index]!.result(result) })
            }
          },
        })
      } catch (error) {
        if (error instanceof TraceStopped) throw error.answer
        throw stopped?.() ?? error
      }
      return results
    },

    async call(request, view, options) {
      // As eth_call and geth's debug_traceCall: a value the sender cannot pay is refused before anything runs.
      requireValueCovered(view.state, request)
      const from = request.from ?? ('0x0000000000000000000000000000000000000000' as Hex)
      const nonce = request.nonce ?? view.state.account(from)?.nonce ?? 0n
      const gas = host.runner.gasLimit(request, view)
      const start: TraceStart = {
        type: request.to == null ? 'CREATE' : 'CALL',
        from,
        to: request.to ?? (createContractAddress(createAddressFromString(from), nonce).toString() as Hex),
        input: request.data === undefined ? new Uint8Array(0) : Buffer.from(request.data.slice(2), 'hex'),
        value: request.value ?? 0n,
        gas,
        coinbase: view.env.coinbase,
        precompiles: precompilesAt(view.env),
        authorities: [],
      }
      const tracer = createTracer(options, start)
      const { hooks, stopped } = guarded(tracer, options.timeoutMs ?? DEFAULT_TRACE_TIMEOUT_MS, maxBytes)
      const { outcome, writes } = await host.runner.executor.trace({ ...request, nonce }, gas, view, hooks)
      // The executor answers a stopped run as an invalid one.
      const reason = stopped()
      if (reason !== undefined) throw reason
      if (outcome.kind === 'invalid') throw invalidCallError(outcome.error, from)
      return tracer.result({
        gasUsed: outcome.gasUsed,
        returnValue: outcome.returnValue,
        error: outcome.kind === 'success' ? undefined : (outcome.error ?? 'revert'),
        pre: view.state,
        writes,
      })
    },
  }
}
