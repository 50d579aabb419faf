import { z } from 'zod'

import { formatTransaction } from '../format.ts'
import { defineMethod } from '../method.ts'
import { bySender } from './group.ts'

import type { TransactionJSON } from '../format.ts'
import type { BySender } from './group.ts'

/** Every pool transaction, by sender and nonce, as eth_getTransactionByHash shows one not yet in a block. */
export const content = defineMethod({
  name: 'txpool_content',
  params: z.tuple([]),
  handler: (_params, { chain }): { pending: BySender<TransactionJSON>; queued: BySender<TransactionJSON> } => {
    const { pending, queued } = chain.pool()
    return { pending: bySender(pending, (tx) => formatTransaction(tx)), queued: bySender(queued, (tx) => formatTransaction(tx)) }
  },
})
