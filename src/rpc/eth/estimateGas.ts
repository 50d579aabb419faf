import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'
import { block, blockOverrides, callRequest, stateOverrides } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/**
 * `(tx, block = latest, stateOverrides?, blockOverrides?)`: the least gas limit at which the transaction succeeds;
 * `pending` estimates against the pre-confirmed state (docs/chain.md, "eth_estimateGas").
 */
export const estimateGas = defineMethod({
  name: 'eth_estimateGas',
  access: 'public',
  upstream: { block: 1, scope: 'state' },
  params: z.tuple([callRequest, block.optional(), stateOverrides.optional(), blockOverrides.optional()]),
  handler: async ([request, given, state, env], { calls, node }): Promise<Hex> =>
    toQuantity(await calls.estimateGas(request, given ?? node.defaultBlock, { state, block: env })),
})
