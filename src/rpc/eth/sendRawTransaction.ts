import { hexToBytes } from '@ethereumjs/util'
import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { data } from '../schemas.ts'

export const sendRawTransaction = defineMethod({
  params: z.tuple([data]),
  handler: ([raw], { chain }) => chain.sendRawTransaction(hexToBytes(raw)),
})
