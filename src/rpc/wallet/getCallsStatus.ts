import { z } from 'zod'

import { formatCallsStatus } from '../format.ts'
import { defineMethod } from '../method.ts'

import type { CallsStatus } from '../format.ts'

export const getCallsStatus = defineMethod({
  name: 'wallet_getCallsStatus',
  access: 'grant',
  params: z.tuple([z.string()]),
  handler: ([id], { wallet, request: caller }): CallsStatus => formatCallsStatus(wallet.batches.status(caller, id)),
})
