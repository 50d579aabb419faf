import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { formatBlock } from '../format.ts'
import { blockByNumber } from '../schemas.ts'

import type { BlockJSON } from '../format.ts'

/** `(block, fullTransactions = false)`; an unknown block is a null result, as in geth (only state reads answer -32001). */
export const getBlockByNumber = defineMethod({
  name: 'eth_getBlockByNumber',
  access: 'public',
  upstream: { block: 0, scope: 'blocks' },
  params: z.tuple([blockByNumber, z.boolean().optional()]),
  handler: ([at, full = false], { blocks }): BlockJSON | null => {
    const found = blocks.block(at)
    return found === undefined ? null : formatBlock(found, full)
  },
})
