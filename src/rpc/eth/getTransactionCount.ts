import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'
import { address, block } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/**
 * `(address, block = latest)`. With `pending`, also past the sender's queued pool transactions. With `latest`, past
 * the sender's pre-confirmed ones: a pre-confirmation is never dropped or reordered, so its nonce is spent, and a
 * client that has its receipt and fills the next nonce from `latest` (foundry's cast does) must not reuse it
 * (docs/chain.md, "Block tags").
 */
export const getTransactionCount = defineMethod({
  name: 'eth_getTransactionCount',
  access: 'public',
  upstream: { block: 1, scope: 'state' },
  params: z.tuple([address, block.optional()]),
  handler: ([account, given], { state, pool, node }): Hex => {
    const at = given ?? node.defaultBlock
    if (at === 'pending') return toQuantity(pool.nextNonce(account))
    return toQuantity(state.stateAt(at === 'latest' ? 'pending' : at).account(account)?.nonce ?? 0n)
  },
})
