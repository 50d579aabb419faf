import { MAX_TIMESTAMP } from './clock.ts'

import type { Hex } from '../../hex.ts'
import type { BlockEnv } from '../types.ts'

/**
 * What the test-control methods set for the blocks to come: from now on, the gas limit (evm_setBlockGasLimit), the
 * fee recipient (anvil_setCoinbase) and the seconds between timestamps (anvil_setBlockTimestampInterval); for the
 * next block alone, its base fee (anvil_setNextBlockBaseFeePerGas) and prevRandao (hardhat_setPrevRandao).
 */
export type BlockPlan = {
  gasLimit: bigint | undefined
  coinbase: Hex | undefined
  timestampInterval: bigint | undefined
  nextBaseFee: bigint | undefined
  nextPrevRandao: Hex | undefined
  /** The environment computed for the next block, with what the plan sets. */
  apply(env: BlockEnv): BlockEnv
  /** The timestamp the plan gives the block after one stamped `parent`, if it gives one. */
  timestampAfter(parent: bigint): bigint | undefined
  /** A block started with the plan: the next-block settings are spent. */
  used(): void
}

export function createBlockPlan(): BlockPlan {
  const plan: BlockPlan = {
    gasLimit: undefined,
    coinbase: undefined,
    timestampInterval: undefined,
    nextBaseFee: undefined,
    nextPrevRandao: undefined,
    apply(env) {
      if (plan.gasLimit !== undefined) env.gasLimit = plan.gasLimit
      if (plan.coinbase !== undefined) env.coinbase = plan.coinbase
      if (plan.nextBaseFee !== undefined && env.baseFeePerGas !== undefined) env.baseFeePerGas = plan.nextBaseFee
      if (plan.nextPrevRandao !== undefined) env.prevRandao = plan.nextPrevRandao
      return env
    },
    timestampAfter(parent) {
      if (plan.timestampInterval === undefined) return undefined
      const next = parent + plan.timestampInterval
      // Past the last timestamp a block may take, blocks go back to the clock rather than stop.
      return next > MAX_TIMESTAMP ? undefined : next
    },
    used() {
      plan.nextBaseFee = undefined
      plan.nextPrevRandao = undefined
    },
  }
  return plan
}
