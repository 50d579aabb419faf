import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { address } from '../schemas.ts'

import type { Hex } from '../../hex.ts'
import type { Capabilities } from '../../wallet/wallet.ts'

export const getCapabilities = defineMethod({
  name: 'wallet_getCapabilities',
  access: 'grant',
  params: z.tuple([
    address,
    z
      .array(
        z
          .string()
          .regex(/^0x[0-9a-fA-F]+$/)
          .transform((id) => `0x${BigInt(id).toString(16)}` as Hex),
      )
      .optional(),
  ]),
  handler: ([account, chainIds], { wallet, request: caller }): Capabilities => wallet.capabilities(caller, account, chainIds),
})
