import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { logFilter } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/**
 * `(filter)`: a filter of the logs sealed from now on that match; poll it with eth_getFilterChanges. -32005 past the
 * cap of filters per origin or in all.
 */
export const newFilter = defineMethod({
  name: 'eth_newFilter',
  access: 'public',
  params: z.tuple([logFilter]),
  handler: ([query], { filters, request }): Hex => filters.newLogFilter(query, request.origin),
})
