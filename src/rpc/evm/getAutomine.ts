import { z } from 'zod'

import { defineMethod } from '../method.ts'

const params = z.tuple([])

/** Whether each transaction is sealed as it arrives (`--mining auto` or evm_setAutomine). */
export const hardhatGetAutomine = defineMethod({
  name: 'hardhat_getAutomine',
  params,
  handler: (_params, { chain }): boolean => chain.mining === 'auto',
})

export const anvilGetAutomine = defineMethod({
  name: 'anvil_getAutomine',
  params,
  handler: (_params, { chain }): boolean => chain.mining === 'auto',
})
