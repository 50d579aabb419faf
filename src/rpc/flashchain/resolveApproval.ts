import { z } from 'zod'

import { defineMethod } from '../method.ts'

export const resolveApproval = defineMethod({
  params: z.tuple([z.string(), z.enum(['approve', 'reject'])]),
  handler: ([id, decision], { wallet, request: caller }) => {
    wallet.requireOwner(caller)
    wallet.approvals.resolve(id, decision)
    return true
  },
})
