import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { hash } from '../schemas.ts'

export type TransactionStatusJSON = { status: 'Known' | 'Unknown' }

/**
 * `(hash)`: Base's base_transactionStatus. Base's node answers from its transaction pool alone: `Known` while the
 * pool holds the transaction, which it does until the transaction's block seals, pre-confirmed in a flashblock or
 * not; `Unknown` for a hash it never saw and, as on Base, for one already sealed (eth_getTransactionReceipt has it).
 */
export const transactionStatus = defineMethod({
  name: 'base_transactionStatus',
  access: 'public',
  params: z.tuple([hash]),
  handler: ([txHash], { blocks }): TransactionStatusJSON => {
    const kind = blocks.transaction(txHash)?.kind
    return { status: kind === 'pool' || kind === 'preconfirmed' ? 'Known' : 'Unknown' }
  },
})
