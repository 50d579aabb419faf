import { getMinimumGasLimit } from '@ethereumjs/tx'

import { ExecutionFailedError, TransactionRejectedError } from '../errors.ts'
import { createForks } from '../spec/forks.ts'
import { gasUpperBound, searchGas } from './estimate.ts'
import { haltReason, invalidCallError } from '../gethErrors.ts'
import { createCallTransaction, createExecutor } from './executor.ts'
import { revertError } from './revert.ts'
import { codeOf } from '../state/code.ts'

import type { Common } from '@ethereumjs/common'
import type { Estimate } from './estimate.ts'
import type { BlockHashes, CallRequest, ExecutionView, Executor } from './executor.ts'
import type { StateReader } from '../state/types.ts'
import type { Hex } from '../../hex.ts'

export type CallRunnerOptions = {
  common: Common
  blockHashes: BlockHashes
  /** geth's RPCGasCap. */
  rpcGasCap: bigint
  /** Whether runs keep their view's deadline (ExecutionView.deadline); the main thread's do. */
  deadlines?: boolean
}

/** eth_call and eth_estimateGas on one state view, as geth answers them. */
export type CallRunner = {
  call(request: CallRequest, view: ExecutionView): Promise<Uint8Array>
  estimate(request: CallRequest, view: ExecutionView): Promise<Estimate>
  /** The highest gas limit an estimate may try: what the block, the caller, the protocol and the balance allow. */
  ceiling(request: CallRequest, view: ExecutionView): bigint
  /** The gas limit eth_call runs a request with: its own, else the block's, within the RPC gas cap and EIP-7825's. */
  gasLimit(request: CallRequest, view: ExecutionView): bigint
  readonly executor: Executor
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000' as Hex

export async function createCallRunner(options: CallRunnerOptions): Promise<CallRunner> {
  const { rpcGasCap } = options
  const executor = await createExecutor({ common: options.common, blockHashes: options.blockHashes, deadlines: options.deadlines })
  const forks = createForks(options.common)

  function callGasLimit(request: CallRequest, view: ExecutionView): bigint {
    let gas = request.gas ?? (rpcGasCap < view.env.gasLimit ? rpcGasCap : view.env.gasLimit)
    if (gas > rpcGasCap) gas = rpcGasCap
    const cap = forks.txGasCap(view.env)
    return cap !== undefined && gas > cap ? cap : gas
  }

  function ceiling(request: CallRequest, view: ExecutionView): bigint {
    const from = request.from ?? ZERO_ADDRESS
    return gasUpperBound({
      blockGasLimit: view.env.gasLimit,
      gas: request.gas,
      txGasCap: forks.txGasCap(view.env),
      rpcGasCap,
      feeCap: request.gasPrice ?? request.maxFeePerGas ?? 0n,
      balance: view.state.account(from)?.balance ?? 0n,
      value: request.value ?? 0n,
      from,
    })
  }

  return {
    executor,
    ceiling,
    gasLimit: callGasLimit,

    async call(request, view) {
      requireValueCovered(view.state, request)
      const outcome = await executor.call(request, callGasLimit(request, view), view)
      switch (outcome.kind) {
        case 'success':
          return outcome.returnValue
        case 'revert':
          throw revertError(outcome.returnValue)
        case 'halt':
          // geth answers a halted call with its own word for the halt (core/vm/errors.go).
          throw new ExecutionFailedError(haltReason(outcome.error ?? 'execution failed'))
        case 'invalid':
          throw invalidCallError(outcome.error, request.from ?? ZERO_ADDRESS)
      }
    },

    async estimate(request, view) {
      const hi = ceiling(request, view)
      // Built once: it tells the least gas limit, and most estimates then run it once at the ceiling.
      const atCeiling = createCallTransaction(request, hi, forks.at(view.env))
      return searchGas({
        run: (gas) => executor.call(request, gas, view, gas === hi ? atCeiling : undefined),
        lowest: getMinimumGasLimit(atCeiling),
        hi,
        isTransfer: isTransfer(request, view.state),
        from: request.from ?? ZERO_ADDRESS,
      })
    },
  }
}

/** A plain value transfer to an account without code, which one run at the intrinsic gas decides. */
function isTransfer(request: CallRequest, state: StateReader): boolean {
  const to = request.to ?? undefined
  return (
    to !== undefined &&
    codeOf(state, to).length === 0 &&
    (request.data === undefined || request.data === '0x') &&
    request.authorizationList === undefined
  )
}

/** geth refuses a call whose value the sender cannot pay, even when gas is free. */
export function requireValueCovered(state: StateReader, request: CallRequest) {
  const from = request.from ?? ZERO_ADDRESS
  const balance = state.account(from)?.balance ?? 0n
  const value = request.value ?? 0n
  if (value > balance) throw new TransactionRejectedError({ kind: 'insufficientFunds', address: from, have: balance, want: value })
}
