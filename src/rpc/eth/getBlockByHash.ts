import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { formatBlock } from '../format.ts'
import { hash } from '../schemas.ts'

import type { BlockJSON } from '../format.ts'

/** `(hash, fullTransactions = false)`; null for an unknown block, as geth. */
export const getBlockByHash = defineMethod({
  name: 'eth_getBlockByHash',
  access: 'public',
  upstream: { block: 0, scope: 'blocks' },
  params: z.tuple([hash, z.boolean().optional()]),
  handler: ([blockHash, full = false], { blocks }): BlockJSON | null => {
    const found = blocks.block({ blockHash })
    return found === undefined ? null : formatBlock(found, full)
  },
})
