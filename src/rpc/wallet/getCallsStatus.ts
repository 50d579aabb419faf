import { z } from 'zod'

import { defineMethod } from '../method.ts'

export const getCallsStatus = defineMethod({
  params: z.tuple([z.string()]),
  handler: ([id], { wallet, request: caller }) => wallet.batches.status(caller, id),
})
