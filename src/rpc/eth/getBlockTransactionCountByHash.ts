import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { toQuantity } from '../format.ts'
import { hash } from '../schemas.ts'

export const getBlockTransactionCountByHash = defineMethod({
  params: z.tuple([hash]),
  handler: ([blockHash], { chain }) => {
    const sealed = chain.blockByHash(blockHash)
    return sealed === undefined ? null : toQuantity(sealed.block.transactions.length)
  },
})
