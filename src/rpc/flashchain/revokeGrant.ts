import { z } from 'zod'

import { defineMethod } from '../method.ts'

export const revokeGrant = defineMethod({
  name: 'flashchain_revokeGrant',
  access: 'owner',
  params: z.tuple([z.string().min(1).max(2048)]),
  /** True when the origin had a grant. */
  handler: ([origin], { wallet }): boolean => {
    return wallet.revokeGrant(origin)
  },
})
