import { z } from 'zod'

import { defineMethod } from '../method.ts'

/** EIP-1102: a dApp asks for accounts; the user's approval grants them to its origin. */
export const requestAccounts = defineMethod({
  params: z.tuple([]),
  handler: (_params, { wallet, request: caller }) => wallet.requestAccounts(caller),
})
