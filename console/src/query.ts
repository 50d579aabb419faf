import { useCallback, useEffect, useRef, useState } from 'preact/hooks'

import { authEpoch } from './rpc.ts'
import { useStore } from './store.ts'

export type Query<T> = { data: T | undefined; error: string | undefined; reload(): void }

/**
 * Loads while the component is on screen: again when `deps` change or a wallet token is given, and every
 * `intervalMs` if set, but not while the browser tab is hidden. A failure keeps the last data beside its message.
 */
export function useQuery<T>(load: () => Promise<T>, deps: unknown[], intervalMs?: number): Query<T> {
  const [data, setData] = useState<T | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const epoch = useStore(authEpoch)
  const loadRef = useRef(load)
  loadRef.current = load
  const generation = useRef(0)

  const reload = useCallback(() => {
    const current = ++generation.current
    loadRef.current().then(
      (value) => {
        if (current !== generation.current) return
        setData(value)
        setError(undefined)
      },
      (reason: unknown) => {
        if (current === generation.current) setError(reason instanceof Error ? reason.message : String(reason))
      },
    )
  }, [])

  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps say when to load again, as useEffect's own do; reload never changes.
  useEffect(() => {
    setData(undefined)
    reload()
    if (intervalMs === undefined) return
    const timer = setInterval(() => document.hidden || reload(), intervalMs)
    return () => clearInterval(timer)
  }, [...deps, epoch, intervalMs])

  return { data, error, reload }
}
