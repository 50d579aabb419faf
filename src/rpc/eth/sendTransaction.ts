import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { callRequest } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** The wallet signs with one of its accounts, filling nonce, gas and fees from the pending state. */
export const sendTransaction = defineMethod({
  name: 'eth_sendTransaction',
  access: 'grant',
  params: z.tuple([callRequest.refine((request) => request.from !== undefined, { message: 'missing "from"', path: ['from'] })]),
  handler: ([request], { wallet, request: caller }): Promise<Hex> => wallet.sendTransaction(caller, { ...request, from: request.from! }),
})
