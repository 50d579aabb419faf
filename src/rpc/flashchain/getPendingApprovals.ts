import { z } from 'zod'

import { defineMethod } from '../method.ts'

export const getPendingApprovals = defineMethod({
  params: z.tuple([]),
  handler: (_params, { wallet, request: caller }) => {
    wallet.requireOwner(caller)
    return wallet.approvals.pending()
  },
})
