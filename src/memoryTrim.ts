// Gives memory back to the system once load has passed. Under load V8 grows the heap well past what is live (a
// 30 MB live heap in 100 MB of pages), and keeps those pages after the load ends: its memory reducer counts the
// last busy period's allocation rate until about 100 s after the last collection (measured: a server idle after a
// minute of eth_estimateGas stayed at 360 MB for 95 s, then fell to 194 MB). A full, compacting collection as soon
// as the process is quiet gives the same back at once.
import { performance } from 'node:perf_hooks'

import type { EventLoopUtilization } from 'node:perf_hooks'

/** How often the process is looked at, ms. */
const CHECK_MS = 2000
/** Below this share of a check's time busy, the process is at rest. */
const QUIET_UTILIZATION = 0.02
/** Growth of the resident set since the last trim (or the start) that is worth a collection, bytes. */
const GROWTH_BYTES = 32 * 2 ** 20

export type MemoryTrimReadings = {
  /** Share of the time since the last check the event loop was busy, 0 to 1. */
  utilization: () => number
  /** Resident set size now, bytes. */
  rss: () => number
  /** A full collection that compacts and gives back what it frees (V8's "last resort" collection). */
  collect: () => void
}

export type MemoryTrim = {
  /** One check: collects if the process was quiet and has grown since the last collection. True if it did. */
  check(): boolean
}

export function createMemoryTrim(readings: MemoryTrimReadings): MemoryTrim {
  let rested = readings.rss()
  return {
    check() {
      if (readings.utilization() >= QUIET_UTILIZATION || readings.rss() < rested + GROWTH_BYTES) return false
      readings.collect()
      rested = readings.rss()
      return true
    },
  }
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0)

/**
 * Checks this process every CHECK_MS while it runs (without keeping it alive). Needs `gc`, which Node exposes with
 * --expose-gc (`npm start` and bin/flashchain.js pass it); without it, does nothing. `log` hears of each trim.
 * Returns the stop function.
 */
export function startMemoryTrim(log?: (line: string) => void): () => void {
  const gc = globalThis.gc
  if (gc === undefined) return () => {}
  let last: EventLoopUtilization = performance.eventLoopUtilization()
  const trim = createMemoryTrim({
    utilization: () => {
      const now = performance.eventLoopUtilization()
      const since = performance.eventLoopUtilization(now, last)
      last = now
      return since.utilization
    },
    rss: () => process.memoryUsage.rss(),
    collect: () => {
      const before = process.memoryUsage.rss()
      const started = performance.now()
      gc({ type: 'major', flavor: 'last-resort', execution: 'sync' })
      log?.(`memory trim: ${mb(before)} → ${mb(process.memoryUsage.rss())} MB resident, ${(performance.now() - started).toFixed(0)} ms`)
    },
  })
  const timer = setInterval(() => trim.check(), CHECK_MS)
  timer.unref()
  return () => clearInterval(timer)
}
