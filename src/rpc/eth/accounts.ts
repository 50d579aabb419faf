import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { Hex } from '../../hex.ts'

/** The accounts this caller may use: all for the owner, those granted to a dApp's origin, else none. */
export const accounts = defineMethod({
  name: 'eth_accounts',
  access: 'grant',
  params: z.tuple([]),
  handler: (_params, { wallet, request: caller }): Hex[] => wallet.accounts(caller),
})
