import { bytesToHex } from '@ethereumjs/util'

import type { TypedTransaction } from '@ethereumjs/tx'
import type { Hex } from '../../hex.ts'

/** Requests waiting for a transaction to be pre-confirmed (eth_sendRawTransactionSync). */
export type PreconfirmationWaiters = {
  /** Resolves once `preconfirmed` names the transaction (true), or after `timeoutMs` (false). */
  wait(hash: Hex, timeoutMs: number): Promise<boolean>
  /** A flashblock went out with these transactions: whoever waits for one of them is answered. */
  preconfirmed(transactions: readonly TypedTransaction[]): void
}

export function createPreconfirmationWaiters(): PreconfirmationWaiters {
  const waiters = new Map<Hex, Set<() => void>>()
  return {
    wait(hash, timeoutMs) {
      return new Promise((resolve) => {
        let resolvers = waiters.get(hash)
        if (resolvers === undefined) waiters.set(hash, (resolvers = new Set()))
        const done = () => {
          clearTimeout(timeout)
          resolve(true)
        }
        const timeout = setTimeout(() => {
          resolvers.delete(done)
          if (resolvers.size === 0) waiters.delete(hash)
          resolve(false)
        }, timeoutMs)
        resolvers.add(done)
      })
    },
    preconfirmed(transactions) {
      for (const tx of transactions) {
        const hash = bytesToHex(tx.hash()) as Hex
        const resolvers = waiters.get(hash)
        if (resolvers === undefined) continue
        waiters.delete(hash)
        for (const resolve of resolvers) resolve()
      }
    },
  }
}
