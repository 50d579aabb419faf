import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { toQuantity } from '../format.ts'
import { SUGGESTED_TIP } from './maxPriorityFeePerGas.ts'

/** What a legacy transaction should pay to be taken in the pending block: its base fee plus the suggested tip. */
export const gasPrice = defineMethod({
  params: z.tuple([]),
  handler: (_params, { chain }) => {
    const pending = chain.resolve('pending')
    const baseFee = pending.kind === 'pending' ? (pending.block.env.baseFeePerGas ?? 0n) : 0n
    return toQuantity(baseFee + SUGGESTED_TIP)
  },
})
