import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { Hex } from '../../hex.ts'

/** EIP-1102: a dApp asks for accounts; the user's approval grants them to its origin. */
export const requestAccounts = defineMethod({
  name: 'eth_requestAccounts',
  access: 'grant',
  params: z.tuple([]),
  handler: (_params, { wallet, request: caller }): Promise<Hex[]> => wallet.requestAccounts(caller),
})
