import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'

import type { Hex } from '../../hex.ts'

export const maxPriorityFeePerGas = defineMethod({
  name: 'eth_maxPriorityFeePerGas',
  access: 'public',
  params: z.tuple([]),
  handler: (_params, { pool }): Hex => toQuantity(pool.suggestedFees().maxPriorityFeePerGas),
})
