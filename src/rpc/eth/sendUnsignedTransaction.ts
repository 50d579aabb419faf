import { z } from 'zod'

import { UnauthorizedError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { callRequest } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/**
 * anvil's: a transaction from an impersonated account, sent without a signature (anvil_impersonateAccount first),
 * with nonce, gas and fees filled as eth_sendTransaction fills them. For the node's owner only.
 */
export const sendUnsignedTransaction = defineMethod({
  name: 'eth_sendUnsignedTransaction',
  access: 'owner',
  params: z.tuple([callRequest.refine((request) => request.from !== undefined, { message: 'missing "from"', path: ['from'] })]),
  handler: ([request], { wallet, request: caller }): Promise<Hex> => {
    // More than the owner's access asks: the account must also be one the owner impersonates.
    if (!wallet.impersonation.has(request.from!))
      throw new UnauthorizedError(`${request.from} is not impersonated; call anvil_impersonateAccount first`)
    return wallet.sendTransaction(caller, { ...request, from: request.from! })
  },
})
