import { z } from 'zod'

import { UnrecognizedChainError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { chainIdParam } from './schemas.ts'

/** EIP-3326: the wallet serves this chain alone; switching to it succeeds, any other is unknown (4902). */
export const switchEthereumChain = defineMethod({
  name: 'wallet_switchEthereumChain',
  access: 'public',
  params: z.tuple([z.object({ chainId: chainIdParam })]),
  handler: ([{ chainId }], { spec }): null => {
    if (chainId !== spec.chainId) throw new UnrecognizedChainError(`0x${chainId.toString(16)}`)
    return null
  },
})
