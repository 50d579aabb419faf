import { z } from 'zod'

import { BlockNotFoundError } from '../../errors.ts'
import { defineMethod } from '../method.ts'
import { formatBlock, formatPendingBlock } from '../format.ts'
import { block } from '../schemas.ts'

export const getBlockByNumber = defineMethod({
  params: z.tuple([block, z.boolean().optional()]),
  handler: ([at, full = false], { chain }) => {
    try {
      const resolved = chain.resolve(at)
      return resolved.kind === 'pending' ? formatPendingBlock(resolved.block, full) : formatBlock(resolved.block, full)
    } catch (error) {
      // An unknown block is a null result here, as in geth; only state reads answer -32001.
      if (error instanceof BlockNotFoundError) return null
      throw error
    }
  },
})
