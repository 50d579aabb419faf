import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { data } from '../schemas.ts'

import type { FilterChanges } from '../filters.ts'

/** `(id)`: what the filter gathered since the last poll; -32000 "filter not found" for an unknown or expired id. */
export const getFilterChanges = defineMethod({
  name: 'eth_getFilterChanges',
  access: 'public',
  params: z.tuple([data]),
  handler: ([id], { filters }): FilterChanges => filters.changes(id),
})
