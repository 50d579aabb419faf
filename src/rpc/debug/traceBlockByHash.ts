import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { hash } from '../schemas.ts'
import { traceConfig } from './schemas.ts'

import type { EncodedJson } from '../../runtime/encodedJson.ts'

/** `(blockHash, config?)`: every transaction of a sealed block as `[{ txHash, result }]`; -32000 for an unknown hash. */
export const traceBlockByHash = defineMethod({
  name: 'debug_traceBlockByHash',
  access: 'public',
  upstream: { block: 0, scope: 'blocks', kept: false },
  params: z.tuple([hash, traceConfig.optional()]),
  handler: ([blockHash, options = {}], { calls }): Promise<EncodedJson> => calls.traceBlock({ blockHash }, options),
})
