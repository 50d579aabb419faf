/**
 * From the engine's and the wallet's errors to the wire's: each domain error's code, and the words clients match on
 * (geth's for the engine, EIP-1193's, EIP-5792's and EIP-747's for the wallet), in one place for every method.
 */
import * as chain from '../chain/errors.ts'
import * as wallet from '../wallet/errors.ts'
import {
  AtomicReadyWalletRejectedUpgradeError,
  BlockNotFoundError,
  BundleTooLargeError,
  DuplicateIdError,
  ExecutionError,
  ExecutionRevertedError,
  ExecutionTimeoutError,
  GasAllowanceError,
  InvalidParamsError,
  MethodNotFoundError,
  RpcError,
  ServerError,
  SimulationError,
  TransactionRejectedError,
  UnauthorizedError,
  UnknownBundleIdError,
  UnsupportedChainIdError,
  UnsupportedNonOptionalCapabilityError,
  UserRejectedRequestError,
  VersionNotSupportedError,
} from './errors.ts'

import type { SimulationRejection, TransactionRejection } from '../chain/errors.ts'

/**
 * Where the methods take each input an engine or wallet error names (InvalidInputError's `input`), as geth names a
 * bad argument. Every method taking one of these takes it at the same place: the call at 0 (eth_call,
 * eth_estimateGas, eth_createAccessList, debug_traceCall), state overrides at 2 (eth_call, eth_estimateGas,
 * debug_traceCall; eth_simulateV1, whose overrides are inside argument 0, has always answered as eth_call does).
 * wallet_watchAsset's params are named, so there is no argument number to give.
 */
const ARGUMENTS: Record<string, string> = {
  call: 'invalid argument 0',
  stateOverrides: 'invalid argument 2',
  transaction: 'invalid argument 0',
  batch: 'invalid argument 0',
  approval: 'invalid argument 0',
  hash: 'invalid argument 1',
  typedData: 'invalid argument 1',
  asset: 'invalid params',
}

/** geth's words for a refused transaction (core/error.go, core/txpool/errors.go), which clients match on. */
function rejectionWords(reason: TransactionRejection): string {
  switch (reason.kind) {
    case 'nonceTooLow':
      return `nonce too low: address ${reason.address}, tx: ${reason.txNonce} state: ${reason.stateNonce}`
    case 'nonceTooHigh':
      return `nonce too high: address ${reason.address}, tx: ${reason.txNonce} state: ${reason.stateNonce}`
    case 'insufficientFunds':
      return `insufficient funds for gas * price + value: address ${reason.address} have ${reason.have} want ${reason.want}`
    case 'intrinsicGasTooLow':
      return `intrinsic gas too low: gas ${reason.gas}, minimum needed ${reason.minimum}`
    case 'floorDataGas':
      return `insufficient gas for floor data gas cost: gas ${reason.gas}, minimum needed ${reason.minimum}`
    case 'exceedsBlockGasLimit':
      return 'exceeds block gas limit'
    case 'gasLimitTooHigh':
      return `transaction gas limit too high (cap: ${reason.cap}, tx: ${reason.gas})`
    case 'invalidChainId':
      return `invalid chain id: have ${reason.got} want ${reason.expected}`
    case 'typeNotSupported':
      return 'transaction type not supported'
    case 'replacementUnderpriced':
      return 'replacement transaction underpriced'
    case 'underpriced':
      return 'transaction underpriced'
    case 'alreadyKnown':
      return 'already known'
    case 'invalidSender':
      return `invalid sender: ${reason.detail}`
    case 'feeCapTooLow':
      return `max fee per gas less than block base fee: address ${reason.address}, maxFeePerGas: ${reason.maxFeePerGas}, baseFee: ${reason.baseFee}`
    case 'senderNotEOA':
      return `sender not an eoa: address ${reason.address}`
    case 'initcodeTooLarge':
      // geth's pool writes "code size N, limit M", its state transition (eth_call, eth_estimateGas) "code size N limit M".
      return `max initcode size exceeded: code size ${reason.size}${reason.by === 'pool' ? ', ' : ' '}limit ${reason.limit}`
    case 'malformed':
      return `invalid transaction: ${reason.detail}`
  }
}

/** eth_simulateV1's code for each refusal; geth has none of its own for nonceMax and blobFeeCapTooLow, and answers its internal error's. */
const SIMULATION_CODES: Record<SimulationRejection['kind'], number> = {
  nonceTooLow: -38010,
  nonceTooHigh: -38011,
  feeCapTooLow: -38012,
  intrinsicGasTooLow: -38013,
  insufficientFunds: -38014,
  nonceMax: -32603,
  blobFeeCapTooLow: -32603,
  blockGasLimitReached: -38015,
  blockNumberOrder: -38020,
  timestampOrder: -38021,
  tooManyBlocks: -38026,
}

function simulationWords(reason: SimulationRejection): string {
  switch (reason.kind) {
    case 'nonceMax':
      return `nonce has max value: address ${reason.address}, nonce: ${reason.nonce}`
    case 'blobFeeCapTooLow':
      return `max fee per blob gas less than block blob gas fee: address ${reason.address} blobGasFeeCap: ${reason.maxFeePerBlobGas}, blobBaseFee: ${reason.blobBaseFee}`
    case 'blockGasLimitReached':
      return `block gas limit reached: ${reason.used} >= ${reason.limit}`
    case 'blockNumberOrder':
      return `block numbers must be in order: ${reason.number} <= ${reason.previous}`
    case 'timestampOrder':
      return `block timestamps must be in order: ${reason.timestamp} <= ${reason.previous}`
    case 'tooManyBlocks':
      return 'too many blocks'
    default:
      return rejectionWords(reason)
  }
}

function fromChain(error: chain.ChainError, revertCode: number): RpcError {
  if (error instanceof chain.InvalidInputError) {
    const argument = error.input === undefined ? undefined : ARGUMENTS[error.input]
    return new InvalidParamsError(argument === undefined ? error.message : `${argument}: ${error.message}`)
  }
  if (error instanceof chain.BlockNotFoundError) return new BlockNotFoundError(error.block)
  if (error instanceof chain.ExecutionRevertedError) return new ExecutionRevertedError({ code: revertCode, reason: error.reason, data: error.data })
  if (error instanceof chain.ExecutionFailedError) return new ExecutionError(error.message)
  if (error instanceof chain.TransactionNotAppliedError) {
    return new ExecutionError(`failed to apply transaction: ${error.rejection === undefined ? error.failure : rejectionWords(error.rejection)}`)
  }
  if (error instanceof chain.ExecutionTimeoutError) {
    return error.during === 'call' ? new ExecutionTimeoutError(error.timeoutMs) : new ServerError('execution timeout')
  }
  if (error instanceof chain.GasAllowanceExceededError) return new GasAllowanceError(error.allowance)
  if (error instanceof chain.TransactionRejectedError) return new TransactionRejectedError(rejectionWords(error.reason))
  if (error instanceof chain.SimulationRejectedError) {
    return new SimulationError(simulationWords(error.reason), { code: SIMULATION_CODES[error.reason.kind] })
  }
  if (error instanceof chain.LimitExceededError) {
    return error.limit === 'logResults' ? new InvalidParamsError(error.message) : new ServerError(error.message)
  }
  // geth has no word for a fork's upstream failing: -32000, as for any failure on the server's side, naming which.
  if (error instanceof chain.UpstreamError) return new ServerError(`fork upstream ${error.upstream} failed ${error.what}: ${error.detail}`)
  // NotFoundError, RefusedError: geth gives these no code of their own.
  return new ServerError(error.message)
}

function fromWallet(error: wallet.WalletError): RpcError {
  if (error instanceof wallet.UserRejectedError) return new UserRejectedRequestError()
  if (error instanceof wallet.NotAuthorizedError) return new UnauthorizedError(error.detail)
  if (error instanceof wallet.UnsupportedRequestError) return new MethodNotFoundError(error.method)
  if (error instanceof wallet.UnsupportedVersionError) return new VersionNotSupportedError(error.version)
  if (error instanceof wallet.UnsupportedCapabilityError) return new UnsupportedNonOptionalCapabilityError(error.capability)
  if (error instanceof wallet.UnsupportedChainError) return new UnsupportedChainIdError()
  if (error instanceof wallet.DuplicateBatchIdError) return new DuplicateIdError()
  if (error instanceof wallet.UnknownBatchError) return new UnknownBundleIdError()
  if (error instanceof wallet.BatchTooLargeError) return new BundleTooLargeError(error.detail)
  if (error instanceof wallet.UpgradeRejectedError) return new AtomicReadyWalletRejectedUpgradeError(error.detail)
  // NoSigningKeyError: geth gives it no code of its own.
  return new ServerError(error.message)
}

/**
 * What anything thrown by a handler is on the wire: an RpcError as it is, an engine's or a wallet's error as its code
 * and geth's words, with `revertCode` for a revert (the chain's `--revert-code`). Undefined for an error that is not
 * ours, which the client sees as -32603 with no stack: its detail goes to the log, never to the client.
 */
export function toRpcError(error: unknown, options: { revertCode: number }): RpcError | undefined {
  if (error instanceof RpcError) return error
  if (error instanceof chain.ChainError) return fromChain(error, options.revertCode)
  if (error instanceof wallet.WalletError) return fromWallet(error)
  return undefined
}
