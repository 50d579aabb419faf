import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { formatReceipt } from '../format.ts'
import { hash } from '../schemas.ts'

/** Pre-confirmed transactions have receipts before their block seals (with blockHash null until then). */
export const getTransactionReceipt = defineMethod({
  params: z.tuple([hash]),
  handler: ([txHash], { chain }) => {
    const location = chain.findTransaction(txHash)
    return location === undefined || location.kind === 'pool' ? null : formatReceipt(location)
  },
})
