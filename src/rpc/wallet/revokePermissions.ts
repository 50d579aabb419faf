import { z } from 'zod'

import { defineMethod } from '../method.ts'

export const revokePermissions = defineMethod({
  name: 'wallet_revokePermissions',
  access: 'grant',
  params: z.tuple([z.strictObject({ eth_accounts: z.object({}) })]),
  handler: (_params, { wallet, request: caller }): null => {
    wallet.revokePermissions(caller)
    return null
  },
})
