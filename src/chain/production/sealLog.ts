import type { Hex } from '../../hex.ts'

/** How long a run of empty blocks goes before its line is printed anyway, so that a quiet node shows it is alive. */
const EMPTY_RUN_MS = 60_000

export type SealLog = {
  /** A block was sealed with `transactions` transactions, `ms` after it was started (undefined: sealed at once). */
  sealed(number: bigint, transactions: number, hash: Hex, ms?: number): void
  /** Prints the run of empty blocks not printed yet (at shutdown). */
  flush(): void
}

/**
 * The terminal's seal lines: one per block that holds transactions, and one per run of empty blocks, printed when
 * the run ends or once a minute while it lasts, so that idle blocks (30 a minute at the default clock) never bury
 * the transactions. `now` is the clock the minute is read on.
 */
export function createSealLog(log: (line: string) => void, now: () => number = Date.now): SealLog {
  let run: { first: bigint; last: bigint; since: number } | undefined

  function flush() {
    if (run === undefined) return
    log(run.first === run.last ? `sealed block ${run.first} (empty)` : `sealed blocks ${run.first}–${run.last} (empty)`)
    run = undefined
  }

  return {
    sealed(number, transactions, hash, ms) {
      if (transactions === 0) {
        if (run === undefined) run = { first: number, last: number, since: now() }
        else run.last = number
        if (now() - run.since >= EMPTY_RUN_MS) flush()
        return
      }
      flush()
      const took = ms === undefined ? '' : ` in ${ms.toFixed(0)} ms`
      log(`sealed block ${number} (${transactions} transaction${transactions === 1 ? '' : 's'}) ${hash}${took}`)
    },
    flush,
  }
}
