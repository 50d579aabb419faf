import { z } from 'zod'

import { defineMethod } from '../method.ts'

export const getPermissions = defineMethod({
  params: z.tuple([]),
  handler: (_params, { wallet, request: caller }) => wallet.getPermissions(caller),
})
