/**
 * What the wallet throws, named by what went wrong, without JSON-RPC codes or the wire's words: the RPC layer maps
 * each to EIP-1193's, EIP-5792's or geth's code and words (rpc/errorMapping.ts). An input the wallet refuses is the engine's
 * InvalidInputError (chain/errors.ts), naming the input.
 */
export class WalletError extends Error {
  constructor(message: string) {
    super(message)
    this.name = new.target.name
  }
}

/** The user (or the approval policy) said no. */
export class UserRejectedError extends WalletError {
  constructor() {
    super('the user rejected the request')
  }
}

/** The caller may not use this account or method; `detail` says why, when the caller may learn it. */
export class NotAuthorizedError extends WalletError {
  readonly detail: string | undefined
  constructor(detail?: string) {
    super(detail ?? 'not authorized')
    this.detail = detail
  }
}

/** A request the wallet does not take as configured (eth_sign, which is off unless enabled). */
export class UnsupportedRequestError extends WalletError {
  readonly method: string
  constructor(method: string) {
    super(`${method} is not enabled`)
    this.method = method
  }
}

/** An account that signs for the owner without a key (an impersonated one) asked to sign. */
export class NoSigningKeyError extends WalletError {}

// ---------------------------------------------------------------------------------------------------------------
// EIP-5792 batches

export class UnsupportedVersionError extends WalletError {
  readonly version: string
  constructor(version: string) {
    super(`batch version ${version} is not supported`)
    this.version = version
  }
}

/** A capability the batch or a call needs (not marked optional) that the wallet does not have. */
export class UnsupportedCapabilityError extends WalletError {
  readonly capability: string
  constructor(capability: string) {
    super(`unsupported capability ${capability}`)
    this.capability = capability
  }
}

/** An atomic batch on a chain where the wallet cannot send one (no EIP-7702, or no executor). */
export class UnsupportedChainError extends WalletError {
  constructor() {
    super('atomic batches are not supported on this chain')
  }
}

export class DuplicateBatchIdError extends WalletError {
  constructor() {
    super('a batch with this id was already sent')
  }
}

/** A batch id never sent, or sent by an account the caller was not granted. */
export class UnknownBatchError extends WalletError {
  constructor() {
    super('no such batch')
  }
}

export class BatchTooLargeError extends WalletError {
  readonly detail: string
  constructor(detail: string) {
    super(`batch too large: ${detail}`)
    this.detail = detail
  }
}

/** The account cannot be upgraded to the batch executor (EIP-7702) for this batch; `detail` says why. */
export class UpgradeRejectedError extends WalletError {
  readonly detail: string | undefined
  constructor(detail?: string) {
    super(detail === undefined ? 'upgrade rejected' : `upgrade rejected: ${detail}`)
    this.detail = detail
  }
}
