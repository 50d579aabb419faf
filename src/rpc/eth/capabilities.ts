import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'

import type { Hex } from '../../hex.ts'

/** One resource of execution-apis' EthCapabilities: served from `oldestBlock` on, and never deleted. */
type Resource = { disabled: false; oldestBlock: Hex }

export type Capabilities = {
  head: { number: Hex; hash: Hex }
  state: Resource
  tx: Resource
  logs: Resource
  receipts: Resource
  blocks: Resource
  stateproofs: Resource
}

/**
 * What this node can serve, for routers (execution-apis' eth_capabilities): everything since genesis, since nothing
 * is pruned (docs/chain.md: the state of every block stays readable, and every block is provable), so no resource
 * states a deleteStrategy.
 */
export const capabilities = defineMethod({
  name: 'eth_capabilities',
  access: 'public',
  params: z.tuple([]),
  handler: (_params, { blocks }): Capabilities => {
    const head = blocks.head()
    const all: Resource = { disabled: false, oldestBlock: '0x0' }
    return {
      head: { number: toQuantity(head.header.number), hash: head.hash },
      state: all,
      tx: all,
      logs: all,
      receipts: all,
      blocks: all,
      stateproofs: all,
    }
  },
})
