/**
 * ethereumjs words the transactions it refuses in its own way; clients (viem's `src/errors/node.ts`, ethers) classify
 * node errors by geth's words. This is the one place that reads the first: it turns them into the reasons geth
 * tells apart (TransactionRejection), which the RPC layer words as geth does, and an EVM halt into geth's word for it.
 */
import { ExecutionFailedError, TransactionRejectedError } from './errors.ts'
import { EIP7825_TX_GAS_CAP } from './spec/forks.ts'

/** The first line of an ethereumjs message, without the context it appends in parentheses. */
function detailOf(message: string): string {
  return message.split('\n')[0]!.replace(/ \(.*$/s, '')
}

/** A transaction that could not be decoded, or that decoding refused (chain id, type, EIP-7825 cap). */
export function decodeError(message: string, context: { chainId: bigint; blockGasLimit: bigint }): TransactionRejectedError {
  let match: RegExpMatchArray | null
  if ((match = message.match(/not matching the derived chain ID (\d+)/)) !== null) {
    return new TransactionRejectedError({ kind: 'invalidChainId', expected: context.chainId, got: BigInt(match[1]!) })
  }
  if ((match = message.match(/Incompatible EIP155-based V (\d+)/)) !== null) {
    return new TransactionRejectedError({ kind: 'invalidChainId', expected: context.chainId, got: (BigInt(match[1]!) - 35n) / 2n })
  }
  if ((match = message.match(/Transaction gas limit (\d+) exceeds the maximum allowed by EIP-7825/)) !== null) {
    const gas = BigInt(match[1]!)
    return new TransactionRejectedError(
      gas > context.blockGasLimit ? { kind: 'exceedsBlockGasLimit' } : { kind: 'gasLimitTooHigh', cap: EIP7825_TX_GAS_CAP, gas },
    )
  }
  const initcode = initcodeSizeError(message, 'pool')
  if (initcode !== undefined) return initcode
  if (/not activated|not supported|Unknown tx type|TypedTransaction with ID \d+ unknown/i.test(message)) {
    return new TransactionRejectedError({ kind: 'typeNotSupported' })
  }
  // Anything else is malformed input; its first line says what.
  return new TransactionRejectedError({ kind: 'malformed', detail: detailOf(message) })
}

/**
 * ethereumjs' EIP-3860 refusal of a creation's initcode (core.ErrMaxInitCodeSizeExceeded), by the pool or by the
 * state transition (eth_call, eth_estimateGas), which geth words apart. Undefined for any other message.
 */
export function initcodeSizeError(message: string, by: 'pool' | 'execution'): TransactionRejectedError | undefined {
  const match = message.match(/the initcode size of this transaction is too large: it is (\d+) while the max is (\d+)/)
  if (match === null) return undefined
  return new TransactionRejectedError({ kind: 'initcodeTooLarge', size: BigInt(match[1]!), limit: BigInt(match[2]!), by })
}

/** A call or estimate that the EVM refused to start (or that halted), from `from`. */
export function invalidCallError(message: string, from: string): TransactionRejectedError | ExecutionFailedError {
  const detail = detailOf(message)
  let match: RegExpMatchArray | null
  if ((match = detail.match(/upfront cost is: (\d+) and the sender's account \S+ only has: (\d+)/)) !== null) {
    return new TransactionRejectedError({ kind: 'insufficientFunds', address: from, have: BigInt(match[2]!), want: BigInt(match[1]!) })
  }
  if ((match = detail.match(/max cost is: (\d+) and the sender's account \S+ only has: (\d+)/)) !== null) {
    return new TransactionRejectedError({ kind: 'insufficientFunds', address: from, have: BigInt(match[2]!), want: BigInt(match[1]!) })
  }
  if ((match = detail.match(/\((\d+)\) is less than the block's baseFeePerGas \((\d+)\)/)) !== null) {
    return new TransactionRejectedError({ kind: 'feeCapTooLow', address: from, maxFeePerGas: BigInt(match[1]!), baseFee: BigInt(match[2]!) })
  }
  if ((match = detail.match(/gas limit (\d+) is lower than the minimum gas limit of (\d+)/)) !== null) {
    return new TransactionRejectedError({ kind: 'intrinsicGasTooLow', gas: BigInt(match[1]!), minimum: BigInt(match[2]!) })
  }
  if (/address is not EOA/.test(detail)) return new TransactionRejectedError({ kind: 'senderNotEOA', address: from })
  return new ExecutionFailedError(detail)
}

/** The reason a pool transaction failed when its turn came, for the log. */
export function dropReason(message: string): string {
  return message.replace(/ \(.*$/s, '')
}

/** ethereumjs' words for an EVM halt, and geth's for the same (core/vm/errors.go). */
const HALTS: Record<string, string> = {
  revert: 'execution reverted',
  'out of gas': 'out of gas',
  'code store out of gas': 'contract creation code storage out of gas',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
  'invalid JUMP': 'invalid jump destination',
  'static state change': 'write protection',
  'create collision': 'contract address collision',
  'insufficient balance': 'insufficient balance for transfer',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  'value out of range': 'return data out of bounds',
}

/** Why a run or a call frame stopped, as geth's results and tracers write it ("execution reverted", "out of gas"). */
export function haltReason(error: string): string {
  return HALTS[error] ?? error
}
