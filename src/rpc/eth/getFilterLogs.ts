import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { data } from '../schemas.ts'
import { logsOf } from './getLogs.ts'

/**
 * `(id)`: every log a log filter's query matches now, as eth_getLogs answers it (on a fork, the upstream's up to the
 * fork block too); -32000 "filter not found" otherwise.
 */
export const getFilterLogs = defineMethod({
  name: 'eth_getFilterLogs',
  access: 'public',
  params: z.tuple([data]),
  handler: ([id], context) => logsOf(context.filters.query(id), context),
})
