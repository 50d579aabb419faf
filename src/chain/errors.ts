/**
 * What the engine throws, named by what went wrong. These errors carry no JSON-RPC code and none of the wire's
 * words: the RPC layer maps each to its code and geth's message in one place (rpc/errorMapping.ts), as anvil's engine
 * returns typed errors and its API turns them into codes. A message here is for the log and for whoever calls the
 * engine in process; where a client matches on the wire's words, the fields hold what the RPC layer writes them from.
 */
import type { Hex } from '../hex.ts'

export class ChainError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = new.target.name
  }
}

/**
 * An input an engine operation refuses. `input` names which one, in the operation's terms (`call`, `stateOverrides`),
 * so that the RPC layer can name the argument it came in as; the message never does.
 */
export class InvalidInputError extends ChainError {
  readonly input: string | undefined
  constructor(message: string, options: { input?: string } = {}) {
    super(message)
    this.input = options.input
  }
}

/** A block tag, number or hash that names no block this chain has. */
export class BlockNotFoundError extends ChainError {
  readonly block: string
  constructor(block: string) {
    super(`no block ${block}`)
    this.block = block
  }
}

/** Something asked for by name or hash that is not there (a transaction, a tracer, a block to trace). */
export class NotFoundError extends ChainError {}

/** A request the engine will not carry out as asked, for the reason its message gives (genesis is not traceable). */
export class RefusedError extends ChainError {}

/** A bound the engine keeps: the results of one log query, or the size of one trace. */
export class LimitExceededError extends ChainError {
  readonly limit: 'logResults' | 'traceSize'
  constructor(message: string, limit: 'logResults' | 'traceSize') {
    super(message)
    this.limit = limit
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Execution

/** A call or estimate that ran into REVERT: Error(string)'s or Panic(uint256)'s reason, if any, and the data. */
export class ExecutionRevertedError extends ChainError {
  readonly reason: string | undefined
  readonly data: Hex
  constructor(options: { reason?: string | undefined; data: Hex }) {
    super(options.reason === undefined ? 'execution reverted' : `execution reverted: ${options.reason}`)
    this.reason = options.reason
    this.data = options.data
  }
}

/** Execution that failed other than by REVERT, in the EVM's own words (`out of gas`, `invalid jump destination`). */
export class ExecutionFailedError extends ChainError {}

/**
 * The transaction eth_createAccessList traces could not be applied: it was refused before it ran (`rejection`), or
 * failed in the EVM's words (`failure`).
 */
export class TransactionNotAppliedError extends ChainError {
  readonly rejection: TransactionRejection | undefined
  readonly failure: string | undefined
  constructor(cause: TransactionRejectedError | ExecutionFailedError) {
    super(`the transaction could not be applied: ${cause.message}`)
    this.rejection = cause instanceof TransactionRejectedError ? cause.reason : undefined
    this.failure = cause instanceof TransactionRejectedError ? undefined : cause.message
  }
}

/** A run stopped at its deadline: a call or estimate on a worker (--rpc.evmtimeout), or a trace (its `timeout`). */
export class ExecutionTimeoutError extends ChainError {
  readonly timeoutMs: number
  readonly during: 'call' | 'trace'
  constructor(timeoutMs: number, during: 'call' | 'trace') {
    super(`${during === 'call' ? 'execution' : 'the trace'} ran past its ${timeoutMs} ms`)
    this.timeoutMs = timeoutMs
    this.during = during
  }
}

/** No gas limit up to `allowance` (what the block, the caller, the caps and the balance allow) lets it succeed. */
export class GasAllowanceExceededError extends ChainError {
  readonly allowance: bigint
  constructor(allowance: bigint) {
    super(`it needs more gas than the allowance of ${allowance}`)
    this.allowance = allowance
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Transactions the pool, a call or a payload refuses

/** Why a transaction (or the transaction a call stands for) is refused before it runs. */
export type TransactionRejection =
  | { kind: 'nonceTooLow'; address: string; txNonce: bigint; stateNonce: bigint }
  | { kind: 'nonceTooHigh'; address: string; txNonce: bigint; stateNonce: bigint }
  | { kind: 'insufficientFunds'; address: string; have: bigint; want: bigint }
  | { kind: 'intrinsicGasTooLow'; gas: bigint; minimum: bigint }
  /** EIP-7623: less gas than the calldata's floor cost. */
  | { kind: 'floorDataGas'; gas: bigint; minimum: bigint }
  | { kind: 'exceedsBlockGasLimit' }
  /** EIP-7825's cap on one transaction's gas. */
  | { kind: 'gasLimitTooHigh'; cap: bigint; gas: bigint }
  | { kind: 'invalidChainId'; expected: bigint; got: bigint }
  | { kind: 'typeNotSupported' }
  | { kind: 'replacementUnderpriced' }
  | { kind: 'underpriced' }
  | { kind: 'alreadyKnown' }
  | { kind: 'invalidSender'; detail: string }
  | { kind: 'feeCapTooLow'; address: string; maxFeePerGas: bigint; baseFee: bigint }
  | { kind: 'senderNotEOA'; address: string }
  /** EIP-3860, refused by the pool or by the state transition (a call), which geth words apart. */
  | { kind: 'initcodeTooLarge'; size: bigint; limit: bigint; by: 'pool' | 'execution' }
  /** Bytes that do not decode to a transaction; `detail` says what is wrong. */
  | { kind: 'malformed'; detail: string }

export class TransactionRejectedError extends ChainError {
  readonly reason: TransactionRejection
  constructor(reason: TransactionRejection) {
    super(`transaction rejected: ${describe(reason)}`)
    this.reason = reason
  }
}

// ---------------------------------------------------------------------------------------------------------------
// eth_simulateV1

/** Why a simulation fails as a whole: a call its block refuses, or blocks that do not follow each other. */
export type SimulationRejection =
  | Extract<TransactionRejection, { kind: 'nonceTooLow' | 'nonceTooHigh' | 'feeCapTooLow' | 'intrinsicGasTooLow' | 'insufficientFunds' }>
  /** EIP-2681: the nonce no transaction may carry. */
  | { kind: 'nonceMax'; address: string; nonce: bigint }
  | { kind: 'blobFeeCapTooLow'; address: string; maxFeePerBlobGas: bigint; blobBaseFee: bigint }
  | { kind: 'blockGasLimitReached'; used: bigint; limit: bigint }
  | { kind: 'blockNumberOrder'; number: bigint; previous: bigint }
  | { kind: 'timestampOrder'; timestamp: bigint; previous: bigint }
  | { kind: 'tooManyBlocks' }

export class SimulationRejectedError extends ChainError {
  readonly reason: SimulationRejection
  constructor(reason: SimulationRejection) {
    super(`simulation rejected: ${describe(reason)}`)
    this.reason = reason
  }
}

/** A reason for the log: its kind, then its fields (`nonceTooLow, address 0x…, txNonce 1, stateNonce 2`). */
function describe(reason: { kind: string }): string {
  const fields = Object.entries(reason).filter(([name]) => name !== 'kind')
  return [reason.kind, ...fields.map(([name, value]) => `${name} ${value}`)].join(', ')
}

// ---------------------------------------------------------------------------------------------------------------
// Fork mode

/**
 * The upstream a fork reads its state from failed to answer: it could not be reached, refused, timed out, or answered
 * something that is not a JSON-RPC answer. `upstream` is its address without credentials (scheme, host and port: a
 * path or query may hold an API key), `what` the read that failed (`eth_getBalance 0x… at block 12`).
 */
export class UpstreamError extends ChainError {
  readonly upstream: string
  readonly what: string
  readonly detail: string
  constructor(options: { upstream: string; what: string; detail: string }, errorOptions?: ErrorOptions) {
    super(`upstream ${options.upstream} failed ${options.what}: ${options.detail}`, errorOptions)
    this.upstream = options.upstream
    this.what = options.what
    this.detail = options.detail
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Across threads

/** A ChainError as it crosses a thread boundary: its class by name, its message and its own fields. */
export type PortableError = { name: string; message: string; fields: Record<string, unknown> }

export function toPortable(error: ChainError): PortableError {
  return { name: error.name, message: error.message, fields: { ...error } }
}

/** Every class a worker may throw, by name, so that the main thread gets the same class back. */
const portableClasses: Record<string, { prototype: ChainError }> = {
  ChainError,
  InvalidInputError,
  BlockNotFoundError,
  NotFoundError,
  RefusedError,
  LimitExceededError,
  ExecutionRevertedError,
  ExecutionFailedError,
  TransactionNotAppliedError,
  ExecutionTimeoutError,
  GasAllowanceExceededError,
  TransactionRejectedError,
  SimulationRejectedError,
  UpstreamError,
}

/** The same error again, of the same class and with the same fields, on this side of the boundary. */
export function fromPortable(portable: PortableError): ChainError {
  const revived = new ChainError(portable.message)
  // The constructors take their causes, not their fields; the prototype is what instanceof sees.
  Object.setPrototypeOf(revived, (portableClasses[portable.name] ?? ChainError).prototype)
  return Object.assign(revived, portable.fields)
}
