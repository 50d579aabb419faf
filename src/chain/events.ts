import type { ChainEvent } from './types.ts'

export type ChainListener = (event: ChainEvent) => void

/**
 * The chain's announcements. The writer hands each one over as a function that builds it, which runs only when
 * someone listens; listeners are called on a later turn of the event loop, in order, so none of their work happens
 * inside a flashblock or a seal. A listener that throws is logged and kept.
 */
export type ChainEvents = {
  /** Starts listening; returns what stops it. */
  subscribe(listener: ChainListener): () => void
  announce(build: () => ChainEvent): void
}

export function createChainEvents(log: (line: string) => void): ChainEvents {
  const listeners = new Set<ChainListener>()
  let queue: ChainEvent[] = []

  function deliver() {
    const events = queue
    queue = []
    for (const event of events) {
      for (const listener of listeners) {
        try {
          listener(event)
        } catch (error) {
          log(`a ${event.type} listener failed: ${error instanceof Error ? error.stack : error}`)
        }
      }
    }
  }

  return {
    subscribe(listener) {
      // A wrapper per subscription, so the same function subscribed twice is two listeners.
      const entry: ChainListener = (event) => listener(event)
      listeners.add(entry)
      return () => listeners.delete(entry)
    },
    announce(build) {
      if (listeners.size === 0) return
      queue.push(build())
      if (queue.length === 1) setImmediate(deliver)
    },
  }
}
