import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { formatBlock } from '../format.ts'
import { hash } from '../schemas.ts'

export const getBlockByHash = defineMethod({
  params: z.tuple([hash, z.boolean().optional()]),
  handler: ([blockHash, full = false], { chain }) => {
    const sealed = chain.blockByHash(blockHash)
    return sealed === undefined ? null : formatBlock(sealed, full)
  },
})
