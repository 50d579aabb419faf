import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { callRequest } from '../schemas.ts'

/** Signs with one of the unlocked dev accounts, filling nonce, gas and fees from the pending state. */
export const sendTransaction = defineMethod({
  params: z.tuple([callRequest.refine((request) => request.from !== undefined, { message: 'missing "from"', path: ['from'] })]),
  handler: ([request], { chain }) => chain.sendTransaction({ ...request, from: request.from! }),
})
