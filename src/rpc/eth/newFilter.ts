import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { logFilter } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** `(filter)`: a filter of the logs sealed from now on that match; poll it with eth_getFilterChanges. */
export const newFilter = defineMethod({
  name: 'eth_newFilter',
  params: z.tuple([logFilter]),
  handler: ([query], { filters }): Hex => filters.newLogFilter(query),
})
