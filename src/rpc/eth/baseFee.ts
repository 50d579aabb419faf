import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'

import type { PendingBlock } from '../../chain/types.ts'
import type { Hex } from '../../hex.ts'

/**
 * The base fee (EIP-1559) of the next block, the one the pending block has, as geth's eth_baseFee; null before
 * London. eth_blobBaseFee, by contrast, answers the newest sealed block's blob fee.
 */
export const baseFee = defineMethod({
  name: 'eth_baseFee',
  access: 'public',
  params: z.tuple([]),
  handler: (_params, { blocks }): Hex | null => {
    const { baseFeePerGas } = (blocks.block('pending') as PendingBlock).env
    return baseFeePerGas === undefined ? null : toQuantity(baseFeePerGas)
  },
})
