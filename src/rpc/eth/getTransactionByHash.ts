import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { formatLocatedTransaction } from '../format.ts'
import { hash } from '../schemas.ts'

export const getTransactionByHash = defineMethod({
  params: z.tuple([hash]),
  handler: ([txHash], { chain }) => {
    const location = chain.findTransaction(txHash)
    return location === undefined ? null : formatLocatedTransaction(location)
  },
})
