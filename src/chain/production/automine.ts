import { pendingIndexOf } from '../blocks/types.ts'

import type { PendingSnapshot } from '../blocks/types.ts'
import type { Hex } from '../../hex.ts'
import type { Producer } from './producer.ts'
import type { Pool } from './txpool.ts'

/**
 * Auto mining: seals one after another, each only if the transaction that asked for it is not sealed yet, so
 * transactions sent together fill blocks rather than leave empty ones behind them.
 */
export type Automine = {
  /** Whether a transaction's send waits for a block sealed with it (evm_setAutomine). */
  enabled: boolean
  /** Seals the transaction's block, unless a seal since it was sent has taken it already. */
  sealWith(hash: Hex): Promise<void>
}

export function createAutomine(parts: { producer: Producer; pool: Pool; pending: () => PendingSnapshot }, enabled: boolean): Automine {
  const { producer, pool, pending } = parts
  let autoSeal: Promise<unknown> = Promise.resolve()
  return {
    enabled,
    sealWith(hash) {
      const sealed = autoSeal.then(async () => {
        if (pool.get(hash) !== undefined || pendingIndexOf(pending(), hash) !== undefined) await producer.seal()
      })
      autoSeal = sealed.catch(() => {})
      return sealed
    },
  }
}
