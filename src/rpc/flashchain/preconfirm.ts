import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'

import type { Hex } from '../../hex.ts'

export type PreconfirmResult = { blockNumber: Hex; flashblockIndex: number; transactions: Hex[] }

/** Publishes one flashblock now: executes the pool's executable transactions on the pending block. For the owner. */
export const preconfirm = defineMethod({
  name: 'flashchain_preconfirm',
  access: 'owner',
  params: z.tuple([]),
  handler: async (_params, { producer }): Promise<PreconfirmResult> => {
    const pending = await producer.preconfirm()
    return {
      blockNumber: toQuantity(pending.env.number),
      flashblockIndex: pending.flashblockIndex,
      transactions: pending.transactions.map((tx) => tx.hash),
    }
  },
})
