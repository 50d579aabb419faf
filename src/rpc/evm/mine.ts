import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { quantity } from '../schemas.ts'

/**
 * Pre-confirms what is pending, then seals the block (optionally at a given timestamp, after the latest block's), as
 * anvil's evm_mine. For the node's owner.
 */
export const mine = defineMethod({
  name: 'evm_mine',
  access: 'owner',
  params: z.tuple([quantity.optional()]),
  handler: async ([timestamp], { producer }): Promise<'0x0'> => {
    await producer.mine({ timestamp })
    return '0x0'
  },
})
