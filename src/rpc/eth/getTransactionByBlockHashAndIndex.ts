import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { formatTransactionAt } from '../format.ts'
import { hash, uint64 } from '../schemas.ts'

import type { TransactionJSON } from '../format.ts'

/** `(blockHash, index)`; null for an unknown block or an index past its last transaction, as geth. */
export const getTransactionByBlockHashAndIndex = defineMethod({
  name: 'eth_getTransactionByBlockHashAndIndex',
  access: 'public',
  upstream: { block: 0, scope: 'blocks' },
  params: z.tuple([hash, uint64]),
  handler: ([blockHash, index], { blocks }): TransactionJSON | null => {
    const found = blocks.block({ blockHash })
    return found === undefined ? null : formatTransactionAt(found, index)
  },
})
