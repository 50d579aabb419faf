import { useEffect, useState } from 'preact/hooks'

/** A value that components follow: `set` re-renders every component that reads it with useStore. */
export type Store<T> = { get(): T; set(value: T): void; subscribe(listener: () => void): () => void }

export function createStore<T>(initial: T): Store<T> {
  let value = initial
  const listeners = new Set<() => void>()
  return {
    get: () => value,
    set(next) {
      value = next
      for (const listener of listeners) listener()
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}

export function useStore<T>(store: Store<T>): T {
  const [, render] = useState(0)
  useEffect(() => store.subscribe(() => render((count) => count + 1)), [store])
  return store.get()
}
