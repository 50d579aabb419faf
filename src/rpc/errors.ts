/**
 * The wire's errors: every JSON-RPC code and every wire message lives here; `toRpcError` (errorMapping.ts) maps what
 * the engine and the wallet throw (chain/errors.ts, wallet/errors.ts) to them, once, for every method.
 *
 * Messages follow geth's wording wherever clients match on it (viem's `src/errors/node.ts` and ethers classify
 * node errors by message), and EIP-1193 / EIP-5792 / EIP-747 for wallet errors.
 */
export type RpcErrorShape = { code: number; message: string; data?: unknown }

export class RpcError extends Error {
  static code = -32603
  readonly code: number
  readonly data: unknown

  constructor(message: string, options: { code?: number; data?: unknown; cause?: unknown } = {}) {
    super(message, { cause: options.cause })
    this.name = new.target.name
    this.code = options.code ?? (new.target as typeof RpcError).code
    this.data = options.data
  }

  toJSON(): RpcErrorShape {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// JSON-RPC 2.0 envelope

export class ParseError extends RpcError {
  static override code = -32700
  constructor(detail?: string) {
    super(detail === undefined ? 'Parse error' : `Parse error: ${detail}`)
  }
}

export class InvalidRequestError extends RpcError {
  static override code = -32600
  constructor(detail: string) {
    super(`Invalid request: ${detail}`)
  }
}

export class MethodNotFoundError extends RpcError {
  static override code = -32601
  constructor(method: string) {
    super(`the method ${method} does not exist/is not available`)
  }
}

/** geth's answer to eth_subscribe over a transport that cannot carry notifications (HTTP). */
export class NotificationsUnsupportedError extends RpcError {
  static override code = -32601
  constructor() {
    super('notifications not supported')
  }
}

/** geth's answer to eth_subscribe with a kind it does not have. */
export class SubscriptionKindNotFoundError extends RpcError {
  static override code = -32601
  constructor(kind: string) {
    super(`no ${JSON.stringify(kind)} subscription in eth namespace`)
  }
}

/** geth's answer to eth_unsubscribe with an id the connection does not have. */
export class SubscriptionNotFoundError extends RpcError {
  static override code = -32000
  constructor() {
    super('subscription not found')
  }
}

/** geth's answer for a filter id it does not have, or one removed after 5 minutes without a poll. */
export class FilterNotFoundError extends RpcError {
  static override code = -32000
  constructor() {
    super('filter not found')
  }
}

export class InvalidParamsError extends RpcError {
  static override code = -32602
}

export class InternalError extends RpcError {
  static override code = -32603
  constructor() {
    super('Internal error')
  }
}

/** EIP-1474 -32005; used for the transport's body-size and batch-length limits. */
export class LimitExceededError extends RpcError {
  static override code = -32005
}

// ---------------------------------------------------------------------------------------------------------------
// Reads and execution

/** -32001 as in EIP-1474 ("resource not found"). */
export class BlockNotFoundError extends RpcError {
  static override code = -32001
  constructor(block: string) {
    super(`block not found: ${block}`)
  }
}

/** -32001 (EIP-1474's "resource not found"): flashchain_getFlashblocks asked from a flashblock no longer kept. */
export class FlashblockNotKeptError extends RpcError {
  static override code = -32001
}

/**
 * A reverted call or estimate. The code is -32000 by default and 3 with `--revert-code 3` (geth's): the chain's
 * configuration, which dispatch hands to toRpcError.
 */
export class ExecutionRevertedError extends RpcError {
  static override code = -32000
  constructor(options: { code: number; reason?: string; data: string }) {
    super(options.reason === undefined ? 'execution reverted' : `execution reverted: ${options.reason}`, {
      code: options.code,
      data: options.data,
    })
  }
}

/** An error geth gives no code of its own, which it answers with -32000 (a missing block named by hash, for one). */
export class ServerError extends RpcError {
  static override code = -32000
}

/** Execution failed for a reason other than REVERT (out of gas, invalid opcode, …), in geth's words. */
export class ExecutionError extends RpcError {
  static override code = -32000
}

/** geth's answer for a call or estimate that ran past --rpc.evmtimeout. */
export class ExecutionTimeoutError extends RpcError {
  static override code = -32000
  constructor(timeoutMs: number) {
    super(`execution aborted (timeout = ${formatDuration(timeoutMs)})`)
  }
}

/** A duration as Go's time.Duration prints it for whole seconds or milliseconds: 5s, 100ms. */
function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`
}

export class GasAllowanceError extends RpcError {
  static override code = -32000
  constructor(allowance: bigint) {
    super(`gas required exceeds allowance (${allowance})`)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Transaction validation (pool and execution). geth answers all of these with -32000.

export class TransactionRejectedError extends RpcError {
  static override code = -32000
}

/**
 * eth_simulateV1's own codes (execution-apis, SIMULATION_CODES): a call the simulated block refuses fails the whole
 * request with one of these, where eth_call would answer -32000.
 */
export class SimulationError extends RpcError {
  static override code = -32000
}

/** EIP-7966: eth_sendRawTransactionSync ran out of time; the hash is in `data`. */
export class TransactionTimeoutError extends RpcError {
  static override code = 4
  constructor(hash: string, timeoutMs: number) {
    // geth's words (its Go duration aside), which clients may match on.
    super(`The transaction was added to the transaction pool but wasn't processed in ${timeoutMs}ms`, { data: hash })
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Wallet: EIP-1193, EIP-5792, EIP-747

export class UserRejectedRequestError extends RpcError {
  static override code = 4001
  constructor() {
    super('User rejected the request')
  }
}

export class UnauthorizedError extends RpcError {
  static override code = 4100
  constructor(detail?: string) {
    super(
      detail === undefined
        ? 'The requested account and/or method has not been authorized by the user'
        : `The requested account and/or method has not been authorized by the user: ${detail}`,
    )
  }
}

/** EIP-1193's 4200: the wallet does not do what was asked (e.g. add a second chain). */
export class UnsupportedMethodError extends RpcError {
  static override code = 4200
  constructor(detail: string) {
    super(`The Provider does not support the requested method: ${detail}`)
  }
}

/** EIP-3326's 4902, in MetaMask's words: a chain the wallet does not know. */
export class UnrecognizedChainError extends RpcError {
  static override code = 4902
  constructor(chainId: string) {
    super(`Unrecognized chain ID "${chainId}". Try adding the chain using wallet_addEthereumChain first.`)
  }
}

export class VersionNotSupportedError extends RpcError {
  static override code = -32000
  constructor(got: string) {
    super(`Version not supported: got ${got}, expected 2.0.0`)
  }
}

export class UnsupportedNonOptionalCapabilityError extends RpcError {
  static override code = 5700
  constructor(capability: string) {
    super(`The wallet does not support a capability that was not marked as optional: ${capability}`)
  }
}

export class UnsupportedChainIdError extends RpcError {
  static override code = 5710
  constructor() {
    super('EIP-7702 not supported on the specified chain ID')
  }
}

export class DuplicateIdError extends RpcError {
  static override code = 5720
  constructor() {
    super('There is already a batch submitted with the specified batch ID')
  }
}

export class UnknownBundleIdError extends RpcError {
  static override code = 5730
  constructor() {
    super('This bundle id is unknown / has not been submitted')
  }
}

export class BundleTooLargeError extends RpcError {
  static override code = 5740
  constructor(detail: string) {
    super(`The batch is too large for the wallet to process: ${detail}`)
  }
}

export class AtomicReadyWalletRejectedUpgradeError extends RpcError {
  static override code = 5750
  constructor(detail?: string) {
    super(
      detail === undefined
        ? 'EIP-7702 upgrade rejected for this chain and account'
        : `EIP-7702 upgrade rejected for this chain and account: ${detail}`,
    )
  }
}
