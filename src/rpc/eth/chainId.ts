import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { toQuantity } from '../format.ts'

export const chainId = defineMethod({
  params: z.tuple([]),
  handler: (_params, { chain }) => toQuantity(chain.chainId),
})
