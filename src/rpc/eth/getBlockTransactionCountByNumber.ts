import { z } from 'zod'

import { BlockNotFoundError } from '../../errors.ts'
import { defineMethod } from '../method.ts'
import { toQuantity } from '../format.ts'
import { block } from '../schemas.ts'

export const getBlockTransactionCountByNumber = defineMethod({
  params: z.tuple([block]),
  handler: ([at], { chain }) => {
    try {
      const resolved = chain.resolve(at)
      return toQuantity(resolved.kind === 'pending' ? resolved.block.transactions.length : resolved.block.block.transactions.length)
    } catch (error) {
      if (error instanceof BlockNotFoundError) return null
      throw error
    }
  },
})
