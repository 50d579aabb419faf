import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { hash } from '../schemas.ts'
import { traceConfig } from './schemas.ts'

/**
 * `(hash, config?)`: a sealed or pre-confirmed transaction replayed on its block's state before it, with the struct
 * logger or a named tracer (callTracer, prestateTracer, 4byteTracer, noopTracer), as geth. -32000 for an unknown
 * hash, and for a trace past its timeout (5 s unless given).
 */
export const traceTransaction = defineMethod({
  name: 'debug_traceTransaction',
  access: 'public',
  upstream: { transaction: 0 },
  params: z.tuple([hash, traceConfig.optional()]),
  handler: ([txHash, options = {}], { calls }): Promise<unknown> => calls.traceTransaction(txHash, options),
})
