import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { toQuantity } from '../format.ts'
import { block, callRequest } from '../schemas.ts'

/** `(tx, block = latest)`; `pending` estimates against the pre-confirmed state (method reference §4.2). */
export const estimateGas = defineMethod({
  params: z.tuple([callRequest, block.optional()]),
  handler: async ([request, at = 'latest'], { chain }) => toQuantity(await chain.estimateGas(request, at)),
})
