import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { quantity } from '../schemas.ts'

/** Moves the chain's clock forward by `seconds` (a number or a hex quantity); answers how far it is now ahead, s. */
export const increaseTime = defineMethod({
  name: 'evm_increaseTime',
  access: 'owner',
  params: z.tuple([quantity]),
  handler: ([seconds], { producer }): number => {
    return Number(producer.increaseTime(seconds))
  },
})
