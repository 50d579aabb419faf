import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { address } from '../schemas.ts'

export const getWatchedAssets = defineMethod({
  params: z.tuple([address.optional()]),
  handler: ([account], { wallet, request: caller }) => {
    wallet.requireOwner(caller)
    return wallet.watchedAssets(caller, account)
  },
})
