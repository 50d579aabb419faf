import { z } from 'zod'

import { defineMethod } from '../method.ts'

export const revokeGrant = defineMethod({
  name: 'flashchain_revokeGrant',
  params: z.tuple([z.string().min(1).max(2048)]),
  /** True when the origin had a grant. */
  handler: ([origin], { wallet, request: caller }): boolean => {
    wallet.requireOwner(caller)
    return wallet.revokeGrant(origin)
  },
})
