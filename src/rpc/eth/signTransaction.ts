import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { callRequest } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** The transaction eth_sendTransaction would send, signed and returned as its raw bytes instead of sent. */
export const signTransaction = defineMethod({
  name: 'eth_signTransaction',
  access: 'grant',
  params: z.tuple([callRequest.refine((request) => request.from !== undefined, { message: 'missing "from"', path: ['from'] })]),
  handler: ([request], { wallet, request: caller }): Promise<Hex> => wallet.signTransaction(caller, { ...request, from: request.from! }),
})
