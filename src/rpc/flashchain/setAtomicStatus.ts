import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { address } from '../schemas.ts'

/**
 * `[address, status | null]`: the atomic status wallet_getCapabilities reports for the account, so that a dApp's
 * other paths can be tried; `unsupported` also refuses the account's wallet_sendCalls with 5710, as a wallet on a
 * chain it cannot batch on does. null goes back to what the chain says.
 */
export const setAtomicStatus = defineMethod({
  name: 'flashchain_setAtomicStatus',
  access: 'owner',
  params: z.tuple([address, z.enum(['supported', 'ready', 'unsupported']).nullable()]),
  handler: ([account, status], { wallet }): true => {
    wallet.setAtomicStatus(account, status ?? undefined)
    return true
  },
})
