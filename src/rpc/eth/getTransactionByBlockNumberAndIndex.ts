import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { formatTransactionAt } from '../format.ts'
import { block, uint64 } from '../schemas.ts'

import type { TransactionJSON } from '../format.ts'

/** `(block, index)`, `pending` included; null for an unknown block or an index past its last transaction, as geth. */
export const getTransactionByBlockNumberAndIndex = defineMethod({
  name: 'eth_getTransactionByBlockNumberAndIndex',
  access: 'public',
  upstream: { block: 0, scope: 'blocks' },
  params: z.tuple([block, uint64]),
  handler: ([at, index], { blocks }): TransactionJSON | null => {
    const found = blocks.block(at)
    return found === undefined ? null : formatTransactionAt(found, index)
  },
})
