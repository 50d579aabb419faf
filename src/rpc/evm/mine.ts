import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { quantityOrNumber } from '../schemas.ts'

/** Pre-confirms what is pending, then seals the block (optionally at a given timestamp), as anvil's evm_mine. */
export const mine = defineMethod({
  name: 'evm_mine',
  params: z.tuple([quantityOrNumber.optional()]),
  handler: async ([timestamp], { chain }): Promise<'0x0'> => {
    await chain.mine({ timestamp })
    return '0x0'
  },
})
