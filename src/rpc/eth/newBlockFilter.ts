import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { Hex } from '../../hex.ts'

/** `()`: a filter of the hashes of blocks sealed from now on. */
export const newBlockFilter = defineMethod({
  name: 'eth_newBlockFilter',
  params: z.tuple([]),
  handler: (_params, { filters }): Hex => filters.newBlockFilter(),
})
