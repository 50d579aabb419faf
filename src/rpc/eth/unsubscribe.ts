import { z } from 'zod'

import { NotificationsUnsupportedError, SubscriptionNotFoundError } from '../errors.ts'
import { defineMethod } from '../method.ts'

import type { Hex } from '../../hex.ts'

/** `(id)`: ends a subscription of this connection; one it does not have gets geth's -32000 "subscription not found". */
export const unsubscribe = defineMethod({
  name: 'eth_unsubscribe',
  access: 'public',
  params: z.tuple([z.string()]),
  handler: ([id], { request }): boolean => {
    if (request.session === undefined) throw new NotificationsUnsupportedError()
    if (!request.session.unsubscribe(id as Hex)) throw new SubscriptionNotFoundError()
    return true
  },
})
