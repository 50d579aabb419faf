import { z } from 'zod'

import { hexToBytes } from '../../hex.ts'
import { defineMethod } from '../method.ts'
import { data } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** Checks a signed transaction against the pending state and pools it; its hash once it is durable. */
export const sendRawTransaction = defineMethod({
  name: 'eth_sendRawTransaction',
  access: 'public',
  params: z.tuple([data]),
  handler: ([raw], { pool }): Promise<Hex> => pool.sendRawTransaction(hexToBytes(raw)),
})
