import { randomBytes } from 'node:crypto'

import type { Hex } from '../hex.ts'

/**
 * A connection that can carry notifications (a WebSocket), and the subscriptions opened on it: each has an id, sends
 * `eth_subscription` notifications while it lasts, and ends on eth_unsubscribe or with the connection.
 */
export type Session = {
  /**
   * Opens a subscription: `start` gets the function that sends one notification (its result as JSON text), and
   * returns what stops the subscription. Answers the new subscription's id.
   */
  subscribe(start: (notify: (resultJson: Buffer) => boolean) => () => void): Hex
  /** Ends a subscription of this connection; false when it has none by that id. */
  unsubscribe(id: Hex): boolean
  /** Ends every subscription: the connection is gone. */
  close(): void
}

const envelopeEnd = Buffer.from('}}')

/**
 * `send` writes one message, a JSON text (as UTF-8 bytes for notifications), to the connection; it answers false
 * once the connection cannot take more.
 */
export function createSession(send: (json: string | Buffer) => boolean): Session {
  const subscriptions = new Map<Hex, () => void>()
  let closed = false
  return {
    subscribe(start) {
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
      else subscriptions.set(id, stop)
      return id
    },
    unsubscribe(id) {
      const stop = subscriptions.get(id.toLowerCase() as Hex)
      if (stop === undefined) return false
      subscriptions.delete(id.toLowerCase() as Hex)
      stop()
      return true
    },
    close() {
      closed = true
      for (const stop of subscriptions.values()) stop()
      subscriptions.clear()
    },
  }
}
