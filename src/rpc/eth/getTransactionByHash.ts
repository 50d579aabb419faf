import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { formatLocatedTransaction } from '../format.ts'
import { hash } from '../schemas.ts'

import type { TransactionJSON } from '../format.ts'

/** A sealed, pre-confirmed or pooled transaction; null for an unknown hash. */
export const getTransactionByHash = defineMethod({
  name: 'eth_getTransactionByHash',
  access: 'public',
  upstream: { byHash: 'blockNumber' },
  params: z.tuple([hash]),
  handler: ([txHash], { blocks }): TransactionJSON | null => {
    const location = blocks.transaction(txHash)
    return location === undefined ? null : formatLocatedTransaction(location)
  },
})
