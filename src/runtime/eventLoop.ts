/**
 * Lets the event loop answer waiting requests before long work goes on. Sealing a block (tries, encoding, the
 * database) is a chain of promises that never reaches the event loop on its own, so without these turns every request
 * that arrives during a seal would wait for all of it.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/** Trie writes between two turns of the event loop while state roots are computed. */
export const TRIE_WRITES_PER_TURN = 64
