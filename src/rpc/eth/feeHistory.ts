import { z } from 'zod'

import { InvalidParamsError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { formatFeeHistory } from '../format.ts'
import { block, quantity } from '../schemas.ts'

import type { FeeHistoryJSON } from '../format.ts'

const blockCount = quantity

/** `(blockCount, newestBlock, rewardPercentiles?)` (EIP-1559, EIP-4844 blob fees). */
export const feeHistory = defineMethod({
  name: 'eth_feeHistory',
  access: 'public',
  params: z.tuple([blockCount, block, z.array(z.number().min(0).max(100)).optional()]),
  handler: ([count, newest, percentiles], { blocks }): FeeHistoryJSON => {
    if (percentiles?.some((value, i) => i > 0 && value < percentiles[i - 1]!)) {
      throw new InvalidParamsError(`invalid reward percentile: ${percentiles.join(',')}, must be ascending`)
    }
    return formatFeeHistory(blocks.feeHistory(count, newest, percentiles))
  },
})
