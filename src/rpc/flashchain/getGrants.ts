import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { Grant } from '../../wallet/permissions.ts'

export const getGrants = defineMethod({
  name: 'flashchain_getGrants',
  params: z.tuple([]),
  handler: (_params, { wallet, request: caller }): Grant[] => {
    wallet.requireOwner(caller)
    return wallet.grants()
  },
})
