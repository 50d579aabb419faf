import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { Hex } from '../../hex.ts'

/**
 * `(full = false)`: a filter of the transactions entering the pool from now on; hashes, or with `true` the
 * transactions. -32005 past the cap of filters per origin or in all.
 */
export const newPendingTransactionFilter = defineMethod({
  name: 'eth_newPendingTransactionFilter',
  access: 'public',
  params: z.tuple([z.boolean().optional()]),
  handler: ([full = false], { filters, request }): Hex => filters.newPendingTransactionFilter(full, request.origin),
})
