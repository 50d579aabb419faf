import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'
import { address, block } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

export const getBalance = defineMethod({
  name: 'eth_getBalance',
  access: 'public',
  upstream: { block: 1, scope: 'state' },
  params: z.tuple([address, block.optional()]),
  handler: ([account, given], { state, node }): Hex => toQuantity(state.stateAt(given ?? node.defaultBlock).account(account)?.balance ?? 0n),
})
