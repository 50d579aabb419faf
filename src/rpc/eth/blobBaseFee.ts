import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'

import type { Hex } from '../../hex.ts'

/** The blob base fee (EIP-4844) of the newest sealed block, as geth answers it; `0x0` before Cancun. */
export const blobBaseFee = defineMethod({
  name: 'eth_blobBaseFee',
  access: 'public',
  params: z.tuple([]),
  handler: (_params, { blocks }): Hex => toQuantity(blocks.blobBaseFee() ?? 0n),
})
