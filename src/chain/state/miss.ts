import type { StateReader } from './types.ts'

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

/** A run's warming, once its first miss set it off: its first answer, and what it still waits for, if anything. */
export type Warming = { readonly first: Promise<unknown>; pending(): Promise<unknown> | undefined }

/**
 * `state` as one run reads it, warmed at its first miss: `warm` starts then (a fork asks its upstream at once for
 * everything the run's call reads, fork/remoteState.ts), and that miss settles once both have, so the run's next
 * reads find what the warming brought. It waits for the warming's first answer at most as long again as its own fetch
 * took: a slow warming holds a run back no longer than it could save. A later miss, while the warming waits for more,
 * settles as soon as either comes. A warming that fails leaves the reads to miss one at a time, as without it.
 */
export function warmingReads(state: StateReader, warm: (missed: string) => Warming): StateReader {
  let warming: Warming | undefined
  function read<T>(get: () => T): T {
    try {
      return get()
    } catch (error) {
      if (!(error instanceof StateMiss)) throw error
      if (warming !== undefined) {
        const pending = warming.pending()
        if (pending === undefined) throw error
        throw new StateMiss(error.key, Promise.race([error.fetched, pending.then(nothing, nothing)]).then(turn))
      }
      const started = performance.now()
      warming = warm(error.key)
      const first = warming.first.then(nothing, nothing)
      const wait = () => Promise.race([first, new Promise((resolve) => setTimeout(resolve, performance.now() - started))])
      throw new StateMiss(error.key, error.fetched.then(wait).then(turn))
    }
  }
  return {
    origin: state.origin,
    waits: state.waits,
    account: (address) => read(() => state.account(address)),
    storage: (address, slot) => read(() => state.storage(address, slot)),
    code: (codeHash) => read(() => state.code(codeHash)),
  }
}

const nothing = () => {}

/**
 * A turn of the event loop, before a warmed run reads on: what the warming asks next goes out first, and what came
 * meanwhile is read, rather than once the run, a long chain of promise jobs, is over.
 */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve))
