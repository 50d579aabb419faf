import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'
import { address, block } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** `(address, block = latest)`; with `pending`, also past the sender's queued pool transactions. */
export const getTransactionCount = defineMethod({
  name: 'eth_getTransactionCount',
  params: z.tuple([address, block.optional()]),
  handler: ([account, at = 'latest'], { chain }): Hex =>
    toQuantity(at === 'pending' ? chain.nextNonce(account) : (chain.stateAt(at).account(account)?.nonce ?? 0n)),
})
