import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { toQuantity } from '../format.ts'

export const blockNumber = defineMethod({
  params: z.tuple([]),
  handler: (_params, { chain }) => toQuantity(chain.head().number),
})
