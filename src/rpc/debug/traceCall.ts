import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { block, callRequest } from '../schemas.ts'
import { traceCallConfig } from './schemas.ts'

/**
 * `(tx, block = latest, config?)`: a call on the state after the block, as eth_call runs it, traced; the config
 * takes geth's `stateOverrides` and `blockOverrides` besides the tracer's options.
 */
export const traceCall = defineMethod({
  name: 'debug_traceCall',
  access: 'public',
  params: z.tuple([callRequest, block.optional(), traceCallConfig.optional()]),
  handler: ([request, given, config], { calls, node }): Promise<unknown> =>
    calls.traceCall(request, given ?? node.defaultBlock, config?.options ?? {}, config?.overrides ?? {}),
})
