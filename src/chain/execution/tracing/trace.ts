import { getActivePrecompiles } from '@ethereumjs/evm'
import { bytesToHex, createAddressFromString, createContractAddress, eoaCode7702RecoverAuthority } from '@ethereumjs/util'

import { ServerError } from '../../../errors.ts'
import { headerEnv } from '../../blocks/env.ts'
import { pendingIndexOf } from '../../blocks/types.ts'
import { invalidCallError } from '../../gethErrors.ts'
import { createEnvBlock } from '../executor.ts'
import { createCallTracer } from './callTracer.ts'
import { createPrestateTracer } from './prestateTracer.ts'
import { replayBlock } from './replay.ts'
import { createFourByteTracer, createNoopTracer } from './simpleTracers.ts'
import { createStructLogger } from './structLogger.ts'

import type { Common } from '@ethereumjs/common'
import type { InterpreterStep } from '@ethereumjs/evm'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { ResolvedBlock } from '../../blocks/tags.ts'
import type { SealedBlocks } from '../../blocks/sealedBlocks.ts'
import type { PendingSnapshot } from '../../blocks/types.ts'
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

/** geth's default: no trace holds the node longer than this. */
export const DEFAULT_TRACE_TIMEOUT_MS = 5_000
/** Steps between turns of the event loop, so that other requests are answered while a long trace runs. */
const STEPS_PER_TURN = 1024

const TRACERS: Record<string, (start: TraceStart, config: TracerConfig) => Tracer> = {
  callTracer: createCallTracer,
  prestateTracer: createPrestateTracer,
  '4byteTracer': createFourByteTracer,
  noopTracer: createNoopTracer,
}

/** The names a request may give as `tracer`. */
export const TRACER_NAMES = Object.keys(TRACERS)

/** A trace ran past its timeout; the step listener throws it to stop the EVM there. */
class TraceTimeout extends Error {}

/**
 * The tracer's hooks, with the timeout checked before each step and the event loop given a turn every so many:
 * an endless loop costs its timeout and no more, and the node keeps answering meanwhile.
 */
function guarded(hooks: ExecutionHooks, timeoutMs: number): ExecutionHooks {
  const deadline = performance.now() + timeoutMs
  let steps = 0
  const inner = hooks.step
  const waits = inner !== undefined && inner.length >= 2
  function step(data: InterpreterStep, resolve?: () => void) {
    if (performance.now() > deadline) throw new TraceTimeout()
    const done = ++steps % STEPS_PER_TURN === 0 ? () => setImmediate(resolve!) : resolve!
    if (inner === undefined) return done()
    if (waits) return inner(data, done)
    inner(data)
    done()
  }
  return { ...hooks, step }
}

function createTracer(options: TraceOptions, start: TraceStart): Tracer {
  if (options.tracer === undefined) return createStructLogger(options)
  const factory = TRACERS[options.tracer]
  if (factory === undefined) throw new ServerError(`tracer ${JSON.stringify(options.tracer)} not found; available: ${TRACER_NAMES.join(', ')}`)
  return factory(start, options.tracerConfig ?? {})
}

/** A block's transactions traced in order: each transaction's hash and its tracer's answer. */
export type BlockTrace = { txHash: Hex; result: unknown }[]

export type Tracing = {
  /** A sealed or pre-confirmed transaction, on the state its block had before it; -32000 for an unknown hash. */
  transaction(hash: Hex, options: TraceOptions): Promise<unknown>
  /** Every transaction of a sealed block, or of the pending block; -32000 for genesis. */
  block(resolved: ResolvedBlock, options: TraceOptions): Promise<BlockTrace>
  /** A call on a block's state (after the block), as eth_call runs it. */
  call(request: CallRequest, view: ExecutionView, options: TraceOptions): Promise<unknown>
}

export function createTracing(host: {
  common: Common
  blockHashes: BlockHashes
  blocks: SealedBlocks
  history: StateHistory
  pending: () => PendingSnapshot
  runner: CallRunner
}): Tracing {
  const { common } = host

  function precompilesAt(env: BlockEnv): Set<Hex> {
    const rules = common.copy()
    rules.setHardforkBy({ blockNumber: env.number, timestamp: env.timestamp })
    return new Set([...getActivePrecompiles(rules).keys()].map((address) => `0x${address}` as Hex))
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

  function replayOf(resolved: ResolvedBlock): { block: ReplayBlock; hashes: Hex[] } {
    if (resolved.kind === 'pending') {
      const snapshot = resolved.block
      const head = host.blocks.head()
      return {
        block: {
          env: snapshot.env,
          header: createEnvBlock(snapshot.env, common, snapshot.env.baseFeePerGas),
          transactions: snapshot.transactions,
          parent: host.history.at(head.number),
        },
        hashes: snapshot.transactions.map((tx) => bytesToHex(tx.hash()) as Hex),
      }
    }
    const sealed = resolved.block
    if (sealed.number === 0n) throw new ServerError('genesis is not traceable')
    return {
      block: {
        env: headerEnv(sealed.block),
        header: sealed.block,
        transactions: sealed.block.transactions,
        parent: host.history.at(sealed.number - 1n),
      },
      hashes: sealed.block.transactions.map((tx) => bytesToHex(tx.hash()) as Hex),
    }
  }

  /** Traces transactions `first`…`last` of a block, each with a tracer of its own. */
  async function traceRange(block: ReplayBlock, first: number, last: number, options: TraceOptions): Promise<unknown[]> {
    const precompiles = precompilesAt(block.env)
    const tracers: Tracer[] = []
    const results: unknown[] = []
    const timeoutMs = options.timeoutMs ?? DEFAULT_TRACE_TIMEOUT_MS
    try {
      await replayBlock(block, {
        common,
        blockHashes: host.blockHashes,
        last,
        hooksFor(index) {
          if (index < first) return undefined
          const tracer = createTracer(options, startOf(block.transactions[index]!, block.env, precompiles))
          tracers[index] = tracer
          return guarded(tracer.hooks, timeoutMs)
        },
        onResult(index, result: ReplayedTransaction) {
          if (index >= first) results.push(tracers[index]!.result(result))
        },
      })
    } catch (error) {
      if (error instanceof TraceTimeout) throw new ServerError('execution timeout')
      throw error
    }
    return results
  }

  return {
    async transaction(hash, options) {
      const key = hash.toLowerCase() as Hex
      const sealedAt = host.blocks.locate(key)
      if (sealedAt !== undefined) {
        const { block } = replayOf({ kind: 'sealed', block: host.blocks.byNumber(sealedAt.number)! })
        return (await traceRange(block, sealedAt.index, sealedAt.index, options))[0]
      }
      // A pre-confirmed transaction is traced on the pending block as of this flashblock, before its seal.
      const snapshot = host.pending()
      const index = pendingIndexOf(snapshot, key)
      if (index === undefined) throw new ServerError('transaction not found')
      const { block } = replayOf({ kind: 'pending', block: snapshot })
      return (await traceRange(block, index, index, options))[0]
    },

    async block(resolved, options) {
      const { block, hashes } = replayOf(resolved)
      if (hashes.length === 0) return []
      const results = await traceRange(block, 0, hashes.length - 1, options)
      return results.map((result, i) => ({ txHash: hashes[i]!, result }))
    },

    async call(request, view, options) {
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
      const hooks = guarded(tracer.hooks, options.timeoutMs ?? DEFAULT_TRACE_TIMEOUT_MS)
      let timedOut = false
      const step = hooks.step!
      hooks.step = (data, resolve) => {
        try {
          step(data, resolve)
        } catch (error) {
          if (error instanceof TraceTimeout) timedOut = true
          throw error
        }
      }
      const { outcome, writes } = await host.runner.executor.trace({ ...request, nonce }, gas, view, hooks)
      if (timedOut) throw new ServerError('execution timeout')
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
