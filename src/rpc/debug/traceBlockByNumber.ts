import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { block } from '../schemas.ts'
import { traceConfig } from './schemas.ts'

import type { EncodedJson } from '../../runtime/encodedJson.ts'

/** `(block, config?)`: every transaction of a block (`pending` too) as `[{ txHash, result }]`; genesis is -32000. */
export const traceBlockByNumber = defineMethod({
  name: 'debug_traceBlockByNumber',
  access: 'public',
  upstream: { block: 0, scope: 'blocks', kept: false },
  params: z.tuple([block, traceConfig.optional()]),
  handler: ([at, options = {}], { calls }): Promise<EncodedJson> => calls.traceBlock(at, options),
})
