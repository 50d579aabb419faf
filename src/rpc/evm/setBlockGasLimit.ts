import { z } from 'zod'

import { InvalidInputError } from '../../chain/errors.ts'
import { L1_INFO_GAS } from '../../chain/opstack/deposits.ts'
import { defineMethod } from '../method.ts'
import { uint64 } from '../schemas.ts'

/** The gas limit of every block from the next one on; answers true, as anvil and Hardhat do. */
export const setBlockGasLimit = defineMethod({
  name: 'evm_setBlockGasLimit',
  access: 'owner',
  params: z.tuple([uint64.refine((gas) => gas > 0n, 'the block gas limit must be above 0')]),
  handler: async ([gasLimit], { producer, spec }): Promise<true> => {
    // An OP Stack block opens with its L1 attributes deposit, which takes 1,000,000 gas.
    if (spec.opStack && gasLimit <= L1_INFO_GAS)
      throw new InvalidInputError(`an OP Stack block holds its L1 attributes deposit's ${L1_INFO_GAS} gas and more`)
    await producer.planBlocks((plan) => {
      plan.gasLimit = gasLimit
    })
    return true
  },
})
