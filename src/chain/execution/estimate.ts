import { ExecutionFailedError, GasAllowanceExceededError, TransactionRejectedError } from '../errors.ts'
import { haltReason, invalidCallError } from '../gethErrors.ts'
import { revertError } from './revert.ts'

import type { CallOutcome } from './executor.ts'

/** EIP-150: a call may forward at most 63/64 of the gas left, so a limit must cover the remaining 1/64 too. */
export const CALL_STIPEND = 2300n
/** Stop when (hi − lo) / hi < 1.5%, as geth does: a few hundred gas is not worth another EVM run. */
const TOLERANCE_PER_MILLE = 15n

export type GasBoundsInput = {
  blockGasLimit: bigint
  /** The caller's `gas`, if any. */
  gas?: bigint
  /** EIP-7825's per-transaction cap, when active. */
  txGasCap?: bigint
  /** geth's RPCGasCap. */
  rpcGasCap: bigint
  /** The price per gas the caller offered (gasPrice or maxFeePerGas); 0 means fees are not charged. */
  feeCap: bigint
  balance: bigint
  value: bigint
  from: string
}

/** The highest gas limit the search may try: what the block, the caller, the protocol and the balance allow. */
export function gasUpperBound(input: GasBoundsInput): bigint {
  let hi = input.blockGasLimit
  if (input.gas !== undefined && input.gas < hi) hi = input.gas
  if (input.txGasCap !== undefined && input.txGasCap < hi) hi = input.txGasCap
  if (input.value > input.balance) {
    throw new TransactionRejectedError({ kind: 'insufficientFunds', address: input.from, have: input.balance, want: input.value })
  }
  if (input.feeCap > 0n) {
    const allowance = (input.balance - input.value) / input.feeCap
    if (allowance < hi) hi = allowance
  }
  if (input.rpcGasCap > 0n && hi > input.rpcGasCap) hi = input.rpcGasCap
  return hi
}

export type SearchBounds = { lo: bigint; hi: bigint }

/** Moves the bounds after one run at `gas`: success lowers the ceiling, anything else raises the floor. */
export function updateBounds(bounds: SearchBounds, gas: bigint, outcome: CallOutcome): SearchBounds {
  return outcome.kind === 'success' ? { lo: bounds.lo, hi: gas } : { lo: gas, hi: bounds.hi }
}

export function isNarrowEnough({ lo, hi }: SearchBounds): boolean {
  return lo + 1n >= hi || ((hi - lo) * 1000n) / hi < TOLERANCE_PER_MILLE
}

export type EstimateInput = {
  /** Runs the transaction once with the given gas limit against one fixed state. */
  run: (gas: bigint) => Promise<CallOutcome>
  /** The least gas limit the transaction may have: intrinsic gas, or the EIP-7623 floor. */
  lowest: bigint
  hi: bigint
  /** A plain value transfer to an account without code: one run at `lowest` decides. */
  isTransfer: boolean
  /** The sender, for error messages. */
  from: string
}

export type Estimate = { gas: bigint; runs: number }

/**
 * geth's and reth's search, with two more shortcuts. The gas a successful run consumed before refunds is a floor
 * for any limit (nothing can run on less), and very often the answer. When the run at the ceiling proves that it
 * would take the same path under a smaller limit (it never looked at its gas: see gasProbe.ts), the least such
 * limit is the answer after that one run. Otherwise a second run at the floor usually confirms it.
 */
export async function searchGas(input: EstimateInput): Promise<Estimate> {
  let runs = 0
  const run = (gas: bigint) => {
    runs++
    return input.run(gas)
  }

  if (input.lowest > input.hi) throw new GasAllowanceExceededError(input.hi)

  if (input.isTransfer) {
    const outcome = await run(input.lowest)
    if (outcome.kind === 'success') return { gas: input.lowest, runs }
  }

  const atCeiling = await run(input.hi)
  switch (atCeiling.kind) {
    case 'invalid':
      throw invalidCallError(atCeiling.error, input.from)
    case 'revert':
      throw revertError(atCeiling.returnValue)
    case 'halt':
      if (atCeiling.error === 'out of gas') throw new GasAllowanceExceededError(input.hi)
      throw new ExecutionFailedError(haltReason(atCeiling.error ?? 'execution failed'))
  }

  if (atCeiling.sufficientGas !== undefined) {
    return { gas: atCeiling.sufficientGas > input.lowest ? atCeiling.sufficientGas : input.lowest, runs }
  }

  const consumed = atCeiling.gasConsumed > input.lowest ? atCeiling.gasConsumed : input.lowest
  let bounds: SearchBounds = { lo: consumed - 1n, hi: input.hi }
  if (consumed < bounds.hi) bounds = updateBounds(bounds, consumed, await run(consumed))

  const optimistic = ((consumed + CALL_STIPEND) * 64n) / 63n
  if (!isNarrowEnough(bounds) && optimistic < bounds.hi) {
    bounds = updateBounds(bounds, optimistic, await run(optimistic))
  }

  while (!isNarrowEnough(bounds)) {
    let mid = (bounds.hi + bounds.lo) / 2n
    // Most transactions need little: search upwards from the floor rather than halving a huge ceiling.
    if (mid > bounds.lo * 2n) mid = bounds.lo * 2n
    bounds = updateBounds(bounds, mid, await run(mid))
  }
  return { gas: bounds.hi, runs }
}
