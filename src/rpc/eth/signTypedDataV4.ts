import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { address } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** EIP-712 `eth_signTypedData_v4 [address, typedData]`, the data as a JSON text or an object, as MetaMask takes it. */
export const signTypedDataV4 = defineMethod({
  name: 'eth_signTypedData_v4',
  access: 'grant',
  params: z.tuple([address, z.union([z.string(), z.record(z.string(), z.unknown())])]),
  handler: ([account, typedData], { wallet, request: caller }): Promise<Hex> => wallet.signTypedData(caller, account, typedData),
})
