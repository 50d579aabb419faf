import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'

import type { Hex } from '../../hex.ts'

/** The pending block's base fee and the suggested tip. */
export const gasPrice = defineMethod({
  name: 'eth_gasPrice',
  access: 'public',
  params: z.tuple([]),
  handler: (_params, { pool }): Hex => toQuantity(pool.suggestedFees().gasPrice),
})
