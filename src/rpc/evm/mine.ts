import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { quantity } from '../schemas.ts'

/** Pre-confirms what is pending, then seals the block (optionally at a given timestamp), as anvil's evm_mine. */
export const mine = defineMethod({
  name: 'evm_mine',
  params: z.tuple([z.union([quantity, z.number().int().nonnegative().transform(BigInt)]).optional()]),
  handler: async ([timestamp], { chain }): Promise<'0x0'> => {
    await chain.mine({ timestamp })
    return '0x0'
  },
})
