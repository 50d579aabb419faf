import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { address } from '../schemas.ts'
import { byNonce, formatPoolTransaction } from './group.ts'

import type { TransactionJSON } from '../format.ts'
import type { ByNonce } from './group.ts'

/** txpool_content for one sender: its transactions by nonce. */
export const contentFrom = defineMethod({
  name: 'txpool_contentFrom',
  access: 'public',
  params: z.tuple([address]),
  handler: ([sender], { pool }): { pending: ByNonce<TransactionJSON>; queued: ByNonce<TransactionJSON> } => {
    const { pending, queued } = pool.content()
    const from = (tx: { from: string }) => tx.from === sender
    return {
      pending: byNonce(pending.filter(from), formatPoolTransaction),
      queued: byNonce(queued.filter(from), formatPoolTransaction),
    }
  },
})
