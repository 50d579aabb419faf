import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'
import { hash } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

export const getBlockTransactionCountByHash = defineMethod({
  name: 'eth_getBlockTransactionCountByHash',
  access: 'public',
  upstream: { block: 0, scope: 'blocks' },
  params: z.tuple([hash]),
  handler: ([blockHash], { blocks }): Hex | null => {
    const found = blocks.block({ blockHash })
    return found === undefined ? null : toQuantity((found.kind === 'sealed' ? found.transactionHashes : found.transactions).length)
  },
})
