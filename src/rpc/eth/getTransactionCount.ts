import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { toQuantity } from '../format.ts'
import { address, block } from '../schemas.ts'

/** With `pending`, the nonce after the pre-confirmed state and the sender's queued pool transactions. */
export const getTransactionCount = defineMethod({
  params: z.tuple([address, block.optional()]),
  handler: ([account, at = 'latest'], { chain }) =>
    toQuantity(at === 'pending' ? chain.nextNonce(account) : (chain.stateAt(at).account(account)?.nonce ?? 0n)),
})
