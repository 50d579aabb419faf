import { z } from 'zod'

import { defineMethod } from '../method.ts'

export const resolveApproval = defineMethod({
  name: 'flashchain_resolveApproval',
  access: 'owner',
  params: z.tuple([z.string(), z.enum(['approve', 'reject'])]),
  handler: ([id, decision], { wallet }): true => {
    wallet.approvals.resolve(id, decision)
    return true
  },
})
