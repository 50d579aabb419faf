import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { Permission } from '../../wallet/wallet.ts'

export const getPermissions = defineMethod({
  name: 'wallet_getPermissions',
  access: 'grant',
  params: z.tuple([]),
  handler: (_params, { wallet, request: caller }): Permission[] => wallet.getPermissions(caller),
})
