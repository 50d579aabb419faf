import { z } from 'zod'

import { defineMethod } from '../method.ts'

export const showCallsStatus = defineMethod({
  params: z.tuple([z.string()]),
  handler: ([id], { wallet, request: caller }) => wallet.batches.show(caller, id),
})
