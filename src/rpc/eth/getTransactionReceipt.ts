import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { formatReceipt } from '../format.ts'
import { hash } from '../schemas.ts'

import type { ReceiptJSON } from '../format.ts'

/** Pre-confirmed transactions have receipts before their block seals (with blockHash null until then). */
export const getTransactionReceipt = defineMethod({
  name: 'eth_getTransactionReceipt',
  access: 'public',
  upstream: { byHash: 'blockNumber' },
  params: z.tuple([hash]),
  handler: ([txHash], { blocks }): ReceiptJSON | null => {
    const location = blocks.transaction(txHash)
    return location === undefined || location.kind === 'pool' ? null : formatReceipt(location)
  },
})
