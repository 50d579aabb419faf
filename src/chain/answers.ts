import { RpcError } from '../errors.ts'

import type { CallRequest } from './execution.ts'

/**
 * Answers of eth_call and eth_estimateGas, kept for repeated identical requests: wallets and dApps ask the same
 * balanceOf or the same estimate again every block. An answer is keyed by the exact state it was computed on (one
 * sealed block, or one published flashblock: both are immutable objects, replaced rather than changed) and the
 * whole request, so a hit is the answer a fresh run would give. A new block or flashblock is a new snapshot, so
 * nothing is ever invalidated by hand; old entries simply age out of the bounded LRU. Requests with state or block
 * overrides are never cached. Failures that are answers (a revert, an out-of-gas estimate) are kept as well; any
 * other error is not. An answer still being computed is shared: identical requests that arrive together (several
 * tabs polling the same flashblock) run the EVM once.
 */
export type AnswerCache = {
  /** The answer for (snapshot, method, request), computing and keeping it on a miss. `hit` says which it was. */
  answer<T>(snapshot: object, method: string, request: CallRequest, compute: () => Promise<T>): Promise<{ value: T; hit: boolean }>
  readonly size: number
}

type Entry = { ok: true; value: unknown } | { ok: false; error: RpcError }

/** Entries kept in all. */
export const ANSWER_CACHE_ENTRIES = 1024
/** Requests whose key is longer (large calldata, such as a deployment) are not worth keeping. */
const LONGEST_KEY = 2048

export function createAnswerCache(capacity = ANSWER_CACHE_ENTRIES): AnswerCache {
  const entries = new Map<string, Promise<Entry>>()
  const snapshotIds = new WeakMap<object, number>()
  let nextSnapshotId = 0

  function keyOf(snapshot: object, method: string, request: CallRequest): string | undefined {
    let id = snapshotIds.get(snapshot)
    if (id === undefined) snapshotIds.set(snapshot, (id = nextSnapshotId++))
    const key = `${id} ${method} ${JSON.stringify(request, (_field, value) => (typeof value === 'bigint' ? `0x${value.toString(16)}` : value))}`
    return key.length <= LONGEST_KEY ? key : undefined
  }

  function keep(key: string, entry: Promise<Entry>) {
    entries.set(key, entry)
    if (entries.size > capacity) entries.delete(entries.keys().next().value!)
  }

  return {
    async answer(snapshot, method, request, compute) {
      const key = keyOf(snapshot, method, request)
      if (key === undefined) return { value: await compute(), hit: false }
      let entry = entries.get(key)
      const hit = entry !== undefined
      if (entry !== undefined) {
        // Most recently used goes last.
        entries.delete(key)
        entries.set(key, entry)
      } else {
        const computing: Promise<Entry> = compute().then(
          (value) => ({ ok: true, value }),
          (error: unknown) => {
            if (error instanceof RpcError) return { ok: false, error }
            if (entries.get(key) === computing) entries.delete(key)
            throw error
          },
        )
        keep(key, (entry = computing))
      }
      const settled = await entry
      if (!settled.ok) throw settled.error
      return { value: settled.value as never, hit }
    },
    get size() {
      return entries.size
    },
  }
}
