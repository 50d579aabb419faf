import { z } from 'zod'

import { NotificationsUnsupportedError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { ownerKinds, parseSubscription, startSubscription } from '../subscriptions.ts'

import type { Hex } from '../../hex.ts'

/**
 * `(kind, options?)`: notifications over this connection until eth_unsubscribe or its end. Over HTTP, which cannot
 * carry them, geth's -32601 "notifications not supported". An owner's kind (flashchain_pendingApprovals) is refused
 * to anyone else with 4100, as the owner's methods are.
 */
export const subscribe = defineMethod({
  name: 'eth_subscribe',
  access: 'public',
  params: z.tuple([z.string(), z.unknown().optional()]),
  handler: ([kind, options], { events, wallet, request: caller }): Hex => {
    if (caller.session === undefined) throw new NotificationsUnsupportedError()
    const request = parseSubscription(kind, options)
    if (ownerKinds.has(request.kind)) wallet.requireOwner(caller)
    return caller.session.subscribe((notify) => startSubscription({ events, approvals: wallet.approvals }, request, notify))
  },
})
