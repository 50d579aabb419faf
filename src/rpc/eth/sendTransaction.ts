import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { callRequest } from '../schemas.ts'

/** The wallet signs with one of its accounts, filling nonce, gas and fees from the pending state. */
export const sendTransaction = defineMethod({
  params: z.tuple([callRequest.refine((request) => request.from !== undefined, { message: 'missing "from"', path: ['from'] })]),
  handler: ([request], { wallet, request: caller }) => wallet.sendTransaction(caller, { ...request, from: request.from! }),
})
