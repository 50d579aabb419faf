import type { ChainEvent } from './types.ts'

export type ChainListener = (event: ChainEvent) => void

/**
 * The chain's announcements. The writer hands each one over as a function that builds it, which runs only when
 * someone listens; listeners are called on a later turn of the event loop, in order, so none of their work happens
 * inside a flashblock or a seal. A listener that throws is logged and kept.
 */
export type ChainEvents<Event = ChainEvent> = {
  /** Starts listening; returns what stops it. */
  subscribe(listener: (event: Event) => void): () => void
  announce(build: () => Event): void
  /** Whether anyone listens: work done only for listeners can be skipped otherwise. */
  readonly listening: boolean
}

export function createChainEvents<Event = ChainEvent>(log: (line: string) => void, name?: (event: Event) => string): ChainEvents<Event> {
  const listeners = new Set<(event: Event) => void>()
  let queue: Event[] = []
  const nameOf = name ?? ((event: Event) => (event as ChainEvent).type)

  function deliver() {
    const events = queue
    queue = []
    for (const event of events) {
      for (const listener of listeners) {
        try {
          listener(event)
        } catch (error) {
          log(`a ${nameOf(event)} listener failed: ${error instanceof Error ? error.stack : error}`)
        }
      }
    }
  }

  return {
    subscribe(listener) {
      // A wrapper per subscription, so the same function subscribed twice is two listeners.
      const entry = (event: Event) => listener(event)
      listeners.add(entry)
      return () => listeners.delete(entry)
    },
    announce(build) {
      if (listeners.size === 0) return
      queue.push(build())
      if (queue.length === 1) setImmediate(deliver)
    },
    get listening() {
      return listeners.size > 0
    },
  }
}
