import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { toQuantity } from '../format.ts'

/** 1 gwei, as anvil and Hardhat suggest: on a local chain any tip is taken. */
export const SUGGESTED_TIP = 1_000_000_000n

export const maxPriorityFeePerGas = defineMethod({
  params: z.tuple([]),
  handler: () => toQuantity(SUGGESTED_TIP),
})
