import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { toQuantity } from '../format.ts'
import { address, block } from '../schemas.ts'

export const getBalance = defineMethod({
  params: z.tuple([address, block.optional()]),
  handler: ([account, at = 'latest'], { chain }) => toQuantity(chain.stateAt(at).account(account)?.balance ?? 0n),
})
