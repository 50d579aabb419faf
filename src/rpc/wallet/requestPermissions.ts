import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { Permission } from '../../wallet/wallet.ts'

/** EIP-2255: only `eth_accounts` can be requested. */
export const requestPermissions = defineMethod({
  name: 'wallet_requestPermissions',
  access: 'grant',
  params: z.tuple([z.strictObject({ eth_accounts: z.object({}) })]),
  handler: (_params, { wallet, request: caller }): Promise<Permission[]> => wallet.requestPermissions(caller),
})
