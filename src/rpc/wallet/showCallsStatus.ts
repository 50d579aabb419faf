import { z } from 'zod'

import { defineMethod } from '../method.ts'

export const showCallsStatus = defineMethod({
  name: 'wallet_showCallsStatus',
  access: 'grant',
  params: z.tuple([z.string()]),
  handler: ([id], { wallet, request: caller }): null => wallet.batches.show(caller, id),
})
