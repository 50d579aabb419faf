import { z } from 'zod'

import { defineMethod } from '../method.ts'

/** EIP-2255: only `eth_accounts` can be requested. */
export const requestPermissions = defineMethod({
  params: z.tuple([z.strictObject({ eth_accounts: z.object({}) })]),
  handler: (_params, { wallet, request: caller }) => wallet.requestPermissions(caller),
})
