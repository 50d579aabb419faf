import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { bySender, formatPoolTransaction } from './group.ts'

import type { TransactionJSON } from '../format.ts'
import type { BySender } from './group.ts'

/** Every pool transaction, by sender and nonce, as eth_getTransactionByHash shows one not yet in a block. */
export const content = defineMethod({
  name: 'txpool_content',
  access: 'public',
  params: z.tuple([]),
  handler: (_params, { pool }): { pending: BySender<TransactionJSON>; queued: BySender<TransactionJSON> } => {
    const { pending, queued } = pool.content()
    return { pending: bySender(pending, formatPoolTransaction), queued: bySender(queued, formatPoolTransaction) }
  },
})
