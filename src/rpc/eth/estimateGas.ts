import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { toQuantity } from '../format.ts'
import { block, blockOverrides, callRequest, stateOverrides } from '../schemas.ts'

/**
 * `(tx, block = latest, stateOverrides?, blockOverrides?)`; `pending` estimates against the pre-confirmed state
 * (method reference §4.2).
 */
export const estimateGas = defineMethod({
  params: z.tuple([callRequest, block.optional(), stateOverrides.optional(), blockOverrides.optional()]),
  handler: async ([request, at = 'latest', state, env], { chain }) => toQuantity(await chain.estimateGas(request, at, { state, block: env })),
})
