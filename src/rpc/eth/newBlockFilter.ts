import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { Hex } from '../../hex.ts'

/** `()`: a filter of the hashes of blocks sealed from now on; -32005 past the cap of filters per origin or in all. */
export const newBlockFilter = defineMethod({
  name: 'eth_newBlockFilter',
  access: 'public',
  params: z.tuple([]),
  handler: (_params, { filters, request }): Hex => filters.newBlockFilter(request.origin),
})
