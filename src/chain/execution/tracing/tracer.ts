import type { ExecutionHooks } from '../executor.ts'
import type { StateDiff, StateReader } from '../../state/types.ts'
import type { Hex } from '../../../hex.ts'

/** The transaction (or call) a tracer watches, as it starts. */
export type TraceStart = {
  type: 'CALL' | 'CREATE'
  from: Hex
  /** The recipient, or the address a creation deploys to. */
  to: Hex
  input: Uint8Array
  value: bigint
  /** The transaction's gas limit. */
  gas: bigint
  /** The block's fee recipient, which a transaction pays. */
  coinbase: Hex
  /** The precompiles' addresses under the block's rules. */
  precompiles: ReadonlySet<Hex>
  /** Accounts the transaction's EIP-7702 authorizations name. */
  authorities: readonly Hex[]
}

/** How it ended: the gas the transaction used (after refunds), what it returned, and why it failed if it did. */
export type TraceEnd = {
  gasUsed: bigint
  returnValue: Uint8Array
  /** ethereumjs' word for a revert or halt ("revert", "out of gas"); undefined on success. */
  error: string | undefined
  /** The state before the transaction, and what it wrote. */
  pre: StateReader
  writes: StateDiff
}

/**
 * A tracer, as geth's are: it listens to one run's EVM events and builds its answer from them, as JSON-ready
 * data. It never changes how the run executes.
 */
export type Tracer = {
  hooks: ExecutionHooks
  result(end: TraceEnd): unknown
  /** About how many bytes of JSON its answer has grown to so far, for a tracer whose answer grows with every step. */
  size?: () => number
}

/** A tracer's options: geth's `tracerConfig` object, as the request gave it. */
export type TracerConfig = Record<string, unknown>

export type TracerFactory = (start: TraceStart, config: TracerConfig) => Tracer
