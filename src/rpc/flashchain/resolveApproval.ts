import { z } from 'zod'

import { defineMethod } from '../method.ts'

export const resolveApproval = defineMethod({
  name: 'flashchain_resolveApproval',
  params: z.tuple([z.string(), z.enum(['approve', 'reject'])]),
  handler: ([id, decision], { wallet, request: caller }): true => {
    wallet.requireOwner(caller)
    wallet.approvals.resolve(id, decision)
    return true
  },
})
