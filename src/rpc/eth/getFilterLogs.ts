import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { data } from '../schemas.ts'

import type { LogJSON } from '../format.ts'

/** `(id)`: every log a log filter's query matches now, as eth_getLogs answers it; -32000 "filter not found" otherwise. */
export const getFilterLogs = defineMethod({
  name: 'eth_getFilterLogs',
  access: 'public',
  params: z.tuple([data]),
  handler: ([id], { filters }): LogJSON[] => filters.logs(id),
})
