import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { hash } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

const params = z.tuple([hash])

/** Takes one transaction out of the pool; answers its hash, or null when the pool does not hold it. */
export const anvilDropTransaction = defineMethod({
  name: 'anvil_dropTransaction',
  access: 'owner',
  params,
  handler: ([txHash], { pool }): Hex | null => {
    return pool.dropTransactions([txHash])[0] ?? null
  },
})

/** The same under Hardhat's name, which answers whether it was dropped. */
export const hardhatDropTransaction = defineMethod({
  name: 'hardhat_dropTransaction',
  access: 'owner',
  params,
  handler: ([txHash], { pool }): boolean => {
    return pool.dropTransactions([txHash]).length > 0
  },
})

/** Empties the pool. Pre-confirmed transactions are in the pending block already, and stay. */
export const anvilDropAllTransactions = defineMethod({
  name: 'anvil_dropAllTransactions',
  access: 'owner',
  params: z.tuple([]),
  handler: (_params, { pool }): null => {
    pool.dropTransactions()
    return null
  },
})
