import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'

import type { Hex } from '../../hex.ts'

/** The newest sealed block's number; the pending block is one past it. */
export const blockNumber = defineMethod({
  name: 'eth_blockNumber',
  access: 'public',
  params: z.tuple([]),
  handler: (_params, { blocks }): Hex => toQuantity(blocks.head().header.number),
})
