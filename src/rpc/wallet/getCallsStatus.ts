import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { CallsStatus } from '../../wallet/batches.ts'

export const getCallsStatus = defineMethod({
  name: 'wallet_getCallsStatus',
  access: 'grant',
  params: z.tuple([z.string()]),
  handler: ([id], { wallet, request: caller }): CallsStatus => wallet.batches.status(caller, id),
})
