import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { address } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** EIP-191 `personal_sign [message, address]`: hex is signed as the bytes it spells, any other string as UTF-8. */
export const personalSign = defineMethod({
  name: 'personal_sign',
  access: 'grant',
  params: z.tuple([z.string(), address]),
  handler: ([message, account], { wallet, request: caller }): Promise<Hex> => wallet.personalSign(caller, message, account),
})
