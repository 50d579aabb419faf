import { z } from 'zod'

import { UnsupportedMethodError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { chainIdParam } from './schemas.ts'

/** EIP-3085: the wallet serves one chain. Adding it again is a no-op, as MetaMask answers for a known chain. */
export const addEthereumChain = defineMethod({
  name: 'wallet_addEthereumChain',
  access: 'public',
  params: z.tuple([z.object({ chainId: chainIdParam }).catchall(z.unknown())]),
  handler: ([{ chainId }], { spec }): null => {
    if (chainId === spec.chainId) return null
    throw new UnsupportedMethodError(
      `flashchain's wallet serves one chain, ${spec.chainId} (0x${spec.chainId.toString(16)}), and cannot add 0x${chainId.toString(16)}`,
    )
  },
})
