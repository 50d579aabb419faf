import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { toQuantity } from '../format.ts'

/** Publishes one flashblock now: executes the pool's executable transactions on the pending block. */
export const preconfirm = defineMethod({
  params: z.tuple([]),
  handler: async (_params, { chain }) => {
    const pending = await chain.preconfirm()
    return {
      blockNumber: toQuantity(pending.env.number),
      flashblockIndex: pending.flashblockIndex,
      transactions: pending.transactions.map((tx) => `0x${Buffer.from(tx.hash()).toString('hex')}`),
    }
  },
})
