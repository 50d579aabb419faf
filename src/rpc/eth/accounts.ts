import { z } from 'zod'

import { defineMethod } from '../method.ts'

/** The accounts this caller may use: all for the owner, those granted to a dApp's origin, else none. */
export const accounts = defineMethod({
  params: z.tuple([]),
  handler: (_params, { wallet, request: caller }) => wallet.accounts(caller),
})
