import { randomBytes } from 'node:crypto'

import { LimitExceededError } from './errors.ts'

import type { Hex } from '../hex.ts'

/**
 * A connection that can carry notifications (a WebSocket), and the subscriptions opened on it: each has an id, sends
 * `eth_subscription` notifications while it lasts, and ends on eth_unsubscribe or with the connection.
 */
export type Session = {
  /**
   * Opens a subscription: `start` gets the function that sends one notification (its result as JSON text), and
   * returns what stops the subscription. Answers the new subscription's id; past a cap, throws -32005.
   */
  subscribe(start: (notify: (resultJson: Buffer) => boolean) => () => void): Hex
  /** Ends a subscription of this connection; false when it has none by that id. */
  unsubscribe(id: Hex): boolean
  /** Ends every subscription: the connection is gone. */
  close(): void
}

/** The subscriptions open across every connection, and the most there may be. */
export type SubscriptionCount = { open: number; max: number }

export type SessionLimits = {
  /** Subscriptions this connection may hold at once. */
  maxSubscriptions: number
  /** Shared by every session of the node. */
  total: SubscriptionCount
}

const envelopeEnd = Buffer.from('}}')

/**
 * `send` writes one message, a JSON text (as UTF-8 bytes for notifications), to the connection; it answers false
 * once the connection cannot take more. Each subscription costs the producer's turn a look at every event, so a
 * connection, and all of them together, may hold only so many (docs/http.md).
 */
export function createSession(
  send: (json: string | Buffer) => boolean,
  limits: SessionLimits = { maxSubscriptions: Number.POSITIVE_INFINITY, total: { open: 0, max: Number.POSITIVE_INFINITY } },
): Session {
  const subscriptions = new Map<Hex, () => void>()
  const { maxSubscriptions, total } = limits
  let closed = false
  const stopOne = (stop: () => void) => {
    total.open--
    stop()
  }
  return {
    subscribe(start) {
      if (subscriptions.size >= maxSubscriptions) {
        throw new LimitExceededError(`too many subscriptions on this connection (at most ${maxSubscriptions}); unsubscribe from one first`)
      }
      if (total.open >= total.max) {
        throw new LimitExceededError(`too many subscriptions on this node (at most ${total.max} across connections); try again later`)
      }
      // geth's ids: 16 random bytes as hex.
      const id = `0x${randomBytes(16).toString('hex')}` as Hex
      // The envelope is encoded once; each notification only copies its result, encoded once for every subscriber,
      // into it (a flashblock can send thousands, and encoding each result again cost more than the rest).
      const prefix = Buffer.from(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":`)
      const stop = start(
        (resultJson) =>
          !closed && subscriptions.has(id) && send(Buffer.concat([prefix, resultJson, envelopeEnd], prefix.length + resultJson.length + 2)),
      )
      if (closed) stop()
      else {
        subscriptions.set(id, stop)
        total.open++
      }
      return id
    },
    unsubscribe(id) {
      const stop = subscriptions.get(id.toLowerCase() as Hex)
      if (stop === undefined) return false
      subscriptions.delete(id.toLowerCase() as Hex)
      stopOne(stop)
      return true
    },
    close() {
      closed = true
      for (const stop of subscriptions.values()) stopOne(stop)
      subscriptions.clear()
    },
  }
}
