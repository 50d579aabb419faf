import { z } from 'zod'

import { defineMethod } from '../method.ts'

const params = z.tuple([z.boolean()])

/** Seals each transaction as it arrives (true), or goes back to the interval clock or manual mining (false). */
export const setAutomine = defineMethod({
  name: 'evm_setAutomine',
  params,
  handler: async ([enabled], { chain, wallet, request }): Promise<true> => {
    wallet.requireOwner(request)
    await chain.setAutomine(enabled)
    return true
  },
})

/** evm_setAutomine under anvil's name, which answers null. */
export const anvilSetAutomine = defineMethod({
  name: 'anvil_setAutomine',
  params,
  handler: async ([enabled], { chain, wallet, request }): Promise<null> => {
    wallet.requireOwner(request)
    await chain.setAutomine(enabled)
    return null
  },
})
