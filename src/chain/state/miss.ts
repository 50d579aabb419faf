/**
 * A read of state that is not here yet: a fork's upstream state not fetched so far (chain/fork/remoteState.ts). The
 * state readers are synchronous, as every read of local state is a map lookup; a read that would have to wait throws
 * a StateMiss instead, which has already started the fetch. Whoever can wait (the state manager's async methods,
 * dispatch) waits for `fetched` and reads again: each miss fetches a key that was not there, so the reads converge.
 */
export class StateMiss extends Error {
  /** What was missing, such as `account 0x…` or `storage 0x… 0x…`. */
  readonly key: string
  /** Settles when the key is here; rejects with the upstream's failure. */
  readonly fetched: Promise<void>

  constructor(key: string, fetched: Promise<void>) {
    super(`state not fetched yet: ${key}`)
    this.key = key
    this.fetched = fetched
    // A miss caught by a reader that gives up (an error answer, a refused request) leaves its fetch unawaited: its
    // failure is that reader's to report, never the process's unhandled rejection.
    fetched.catch(() => {})
  }
}

/**
 * Runs `read` until it finishes without a miss, waiting for each miss's fetch in between. `read` must change nothing
 * before it reads what it needs: it may run again from the start.
 */
export async function untilFetched<T>(read: () => T | Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await read()
    } catch (error) {
      if (!(error instanceof StateMiss)) throw error
      await error.fetched
    }
  }
}

/**
 * Runs every read, then waits for all their misses together, and again for the reads that missed, until none does:
 * keys known before a run (a block's system work) are fetched in one batch rather than one miss at a time.
 */
export async function prefetch(reads: readonly (() => unknown)[]): Promise<void> {
  let left = reads
  while (left.length > 0) {
    const waiting: Promise<void>[] = []
    const missed: (() => unknown)[] = []
    for (const read of left) {
      try {
        read()
      } catch (error) {
        if (!(error instanceof StateMiss)) throw error
        waiting.push(error.fetched)
        missed.push(read)
      }
    }
    await Promise.all(waiting)
    left = missed
  }
}
