import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { uint64 } from '../schemas.ts'

/** The gas limit of every block from the next one on; answers true, as anvil and Hardhat do. */
export const setBlockGasLimit = defineMethod({
  name: 'evm_setBlockGasLimit',
  access: 'owner',
  params: z.tuple([uint64.refine((gas) => gas > 0n, 'the block gas limit must be above 0')]),
  handler: async ([gasLimit], { producer }): Promise<true> => {
    await producer.planBlocks((plan) => {
      plan.gasLimit = gasLimit
    })
    return true
  },
})
