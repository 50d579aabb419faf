import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { address, data } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** `eth_sign [address, hash]`: the raw 32-byte hash, signed only when the node was started with --enable-eth-sign. */
export const sign = defineMethod({
  name: 'eth_sign',
  access: 'grant',
  params: z.tuple([address, data]),
  handler: ([account, hash], { wallet, request: caller }): Promise<Hex> => wallet.ethSign(caller, account, hash),
})
