import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'

import type { Hex } from '../../hex.ts'

/** How many pool transactions the next flashblock can take (`pending`) and how many wait behind a nonce gap. */
export const status = defineMethod({
  name: 'txpool_status',
  access: 'public',
  params: z.tuple([]),
  handler: (_params, { pool }): { pending: Hex; queued: Hex } => {
    const { pending, queued } = pool.content()
    return { pending: toQuantity(BigInt(pending.length)), queued: toQuantity(BigInt(queued.length)) }
  },
})
