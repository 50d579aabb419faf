import { z } from 'zod'

import { defineMethod } from '../method.ts'

export const accounts = defineMethod({
  params: z.tuple([]),
  handler: (_params, { chain }) => chain.accounts.map((account) => account.address),
})
