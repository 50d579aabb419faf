import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { BatchSummary } from '../../wallet/batches.ts'

/** Most batches one answer lists. */
const maxLimit = 1000

export const getBatches = defineMethod({
  name: 'flashchain_getBatches',
  access: 'owner',
  params: z.tuple([z.strictObject({ limit: z.number().int().min(1).max(maxLimit).optional() }).optional()]),
  handler: ([options], { wallet }): BatchSummary[] => {
    return wallet.batches.recent(options?.limit ?? 50)
  },
})
