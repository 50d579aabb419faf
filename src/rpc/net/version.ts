import { z } from 'zod'

import { defineMethod } from '../method.ts'

/** The network id, in decimal as geth answers it; a dev chain's network id is its chain id. */
export const version = defineMethod({
  name: 'net_version',
  access: 'public',
  params: z.tuple([]),
  handler: (_params, { spec }): string => spec.chainId.toString(),
})
