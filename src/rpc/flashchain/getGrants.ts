import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { Grant } from '../../wallet/permissions.ts'

export const getGrants = defineMethod({
  name: 'flashchain_getGrants',
  access: 'owner',
  params: z.tuple([]),
  handler: (_params, { wallet }): Grant[] => {
    return wallet.grants()
  },
})
