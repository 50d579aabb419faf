import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'

import type { Hex } from '../../hex.ts'

export const chainId = defineMethod({
  name: 'eth_chainId',
  access: 'public',
  params: z.tuple([]),
  handler: (_params, { spec }): Hex => toQuantity(spec.chainId),
})
