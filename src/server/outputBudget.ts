/**
 * The bytes the node holds for its clients to read, across every connection, HTTP and WebSocket: answers and
 * notifications written to a socket and not yet taken by the kernel. Each connection keeps within its own budget
 * (http1.ts answers one request at a time, websocket.ts drops a connection that falls behind); this is the sum
 * over all of them, so that many connections, each within its own budget, cannot hold gigabytes together. Past the
 * total, the connection furthest behind is dropped first, as many as it takes (docs/http.md, "What a client may
 * hold").
 */

/** One connection as the budget sees it. */
export type BudgetedOutput = {
  /** Bytes written to its socket and not yet taken by the kernel. */
  waiting(): number
  /**
   * Of those, the bytes of one message the connection is owed beyond its own budget (an answer larger than the
   * budget, sent while within it): not counted as being behind when the furthest-behind connection is picked.
   */
  excused(): number
  /** Whether it was dropped (by the budget or for its own): it sends nothing more, and leaves soon. */
  dropped(): boolean
  /**
   * Drops the connection: it sends nothing more, and lets go of what it holds at once or after a grace in which the
   * client may read its close frame. Asked again, it lets go at once.
   */
  drop(): void
}

export type OutputBudget = {
  /** The most bytes waiting across connections still served. */
  readonly maxTotalBytes: number
  /** Counts a connection's output until the returned function is called (when it closes). */
  add(output: BudgetedOutput): () => void
  /** `bytes` were just written to one connection: past the total, connections are dropped until it is met. */
  wrote(bytes: number): void
}

/**
 * Connections still served hold at most `maxTotalBytes` together; those dropped and given a grace to read their close
 * frame hold at most as much again, past which the one furthest behind is cut at once.
 */
export function createOutputBudget(maxTotalBytes: number): OutputBudget {
  const outputs = new Set<BudgetedOutput>()
  /**
   * At least what waits on connections still served: raised by every write, set to the real sum whenever it passes
   * the total. Bytes leave with no event of ours, so the real sum is counted (one look at each connection) only when
   * the estimate says it could be over.
   */
  let estimate = 0

  /** The connection of `among` furthest behind, skipping those in `skip`. */
  function furthestBehind(among: (output: BudgetedOutput) => boolean, skip?: Set<BudgetedOutput>): BudgetedOutput | undefined {
    let furthest: BudgetedOutput | undefined
    let most = -1
    for (const output of outputs) {
      if (!among(output) || skip?.has(output)) continue
      const behind = output.waiting() - output.excused()
      if (behind > most) {
        furthest = output
        most = behind
      }
    }
    return furthest
  }

  return {
    maxTotalBytes,
    add(output) {
      outputs.add(output)
      return () => {
        outputs.delete(output)
      }
    },
    wrote(bytes) {
      estimate += bytes
      if (estimate <= maxTotalBytes) return
      let served = 0
      let closing = 0
      for (const output of outputs) {
        if (output.dropped()) closing += output.waiting()
        else served += output.waiting()
      }
      const isServed = (output: BudgetedOutput) => !output.dropped()
      while (served > maxTotalBytes) {
        const furthest = furthestBehind(isServed)
        if (furthest === undefined) break
        const waiting = furthest.waiting()
        furthest.drop()
        served -= waiting
        closing += waiting
      }
      const cut = new Set<BudgetedOutput>()
      while (closing > maxTotalBytes) {
        const furthest = furthestBehind((output) => output.dropped(), cut)
        if (furthest === undefined) break
        closing -= furthest.waiting()
        cut.add(furthest)
        furthest.drop()
      }
      estimate = served
    },
  }
}
