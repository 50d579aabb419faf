import { z } from 'zod'

import { defineMethod } from '../method.ts'

/** A local chain produces its own blocks: it is never syncing. */
export const syncing = defineMethod({
  name: 'eth_syncing',
  access: 'public',
  params: z.tuple([]),
  handler: (): false => false,
})
