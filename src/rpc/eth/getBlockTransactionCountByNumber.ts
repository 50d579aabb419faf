import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'
import { blockByNumber } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

export const getBlockTransactionCountByNumber = defineMethod({
  name: 'eth_getBlockTransactionCountByNumber',
  access: 'public',
  upstream: { block: 0, scope: 'blocks' },
  params: z.tuple([blockByNumber]),
  handler: ([at], { blocks }): Hex | null => {
    const found = blocks.block(at)
    return found === undefined ? null : toQuantity((found.kind === 'sealed' ? found.transactionHashes : found.transactions).length)
  },
})
