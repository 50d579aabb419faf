// Gives memory back to the system once load has passed. Under load V8 grows the heap well past what is live (a
// 30 MB live heap in 100 MB of pages), and keeps those pages after the load ends: its memory reducer counts the
// last busy period's allocation rate until about 100 s after the last collection (measured: a server idle after a
// minute of eth_estimateGas stayed at 360 MB for 95 s, then fell to 194 MB). A full, compacting collection as soon
// as the process is quiet gives the same back at once.
//
// What the collection frees outside V8's heap (the backing stores of typed arrays, the HTTP layer's buffers) goes
// back to glibc's malloc, which returns only the top of each arena to the system; the free pages between live
// allocations stay resident until malloc_trim asks for them. After 6400 transactions that was 41 MB of a 167 MB
// resident set at rest. Node has no binding for it, so it is called through koffi, a foreign-function package with
// prebuilt binaries; where it cannot be had (another libc, another platform) the collection runs alone.
import { createRequire } from 'node:module'
import { performance } from 'node:perf_hooks'
import { getHeapStatistics } from 'node:v8'

import type { EventLoopUtilization } from 'node:perf_hooks'

/** How often the process is looked at, ms. */
const CHECK_MS = 2000
/** Below this share of a check's time busy, the process is at rest. */
const QUIET_UTILIZATION = 0.02
/** Growth of the resident set since the last trim (or the start) that is worth a collection, bytes. */
const GROWTH_BYTES = 32 * 2 ** 20
/**
 * The least time between two collections, ms. malloc_trim lowers the resting point below what light traffic soon
 * touches again, and a collection pauses the process for 40–60 ms: at most one per half minute while quiet.
 */
export const MIN_COLLECTION_GAP_MS = 30_000

export type MemoryTrimReadings = {
  /** Share of the time since the last check the event loop was busy, 0 to 1. */
  utilization: () => number
  /** The size whose growth is watched now, bytes: the resident set, or a worker's heap. */
  size: () => number
  /** A full collection that compacts and gives back what it frees (V8's "last resort" collection). */
  collect: () => void
  /** A monotonic clock, ms. */
  now: () => number
}

export type MemoryTrim = {
  /** One check: collects if the thread was quiet and has grown since the last collection. True if it did. */
  check(): boolean
  /** Takes `size` as the size at rest, for memory given back after the collection returned. */
  rested(size: number): void
}

export type MemoryTrimRule = {
  /** Growth since the last collection (or the start) that is worth another, bytes (default 32 MB). */
  growthBytes?: number
  /**
   * The first quiet check collects whatever the growth: the garbage of the start itself (see startMemoryTrim), given
   * back once the process is at rest rather than on the way to listening.
   */
  collectAtFirstRest?: boolean
  /** The least time between two collections, ms (default MIN_COLLECTION_GAP_MS). */
  minGapMs?: number
}

export function createMemoryTrim(readings: MemoryTrimReadings, rule: MemoryTrimRule = {}): MemoryTrim {
  const { growthBytes = GROWTH_BYTES, minGapMs = MIN_COLLECTION_GAP_MS, collectAtFirstRest = false } = rule
  let rested = collectAtFirstRest ? Number.NEGATIVE_INFINITY : readings.size()
  let collectedAt = Number.NEGATIVE_INFINITY
  return {
    check() {
      if (readings.utilization() >= QUIET_UTILIZATION || readings.size() < rested + growthBytes) return false
      if (readings.now() - collectedAt < minGapMs) return false
      readings.collect()
      collectedAt = readings.now()
      rested = readings.size()
      return true
    },
    rested(size) {
      rested = Math.min(rested, size)
    },
  }
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0)

/** Time for V8's background sweeper to free the backing stores the collection found dead, ms. */
const SWEEP_MS = 200

let mallocTrim: (() => void) | null | undefined

/**
 * glibc's malloc_trim(0): gives every arena's free pages back to the system. Null where there is no glibc or no
 * koffi. Bound at the first trim, not at start, since loading koffi costs about 6 MB.
 */
export function glibcMallocTrim(): (() => void) | null {
  if (mallocTrim !== undefined) return mallocTrim
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi')
    const trim = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)')
    mallocTrim = () => void trim(0)
  } catch {
    mallocTrim = null
  }
  return mallocTrim
}

type Collection = { beforeBytes: number; afterBytes: number; ms: number }

/**
 * A full collection that compacts and gives back what it frees, now, with the resident set before and after it;
 * undefined where `gc` is not exposed.
 */
function collectFully(): Collection | undefined {
  const gc = globalThis.gc
  if (gc === undefined) return undefined
  const beforeBytes = process.memoryUsage.rss()
  const started = performance.now()
  gc({ type: 'major', flavor: 'last-resort', execution: 'sync' })
  return { beforeBytes, afterBytes: process.memoryUsage.rss(), ms: performance.now() - started }
}

const resident = ({ beforeBytes, afterBytes }: Collection) => `${mb(beforeBytes)} → ${mb(afterBytes)} MB resident`

export type StartMemoryTrimOptions = MemoryTrimRule & {
  /** Hears of each trim. */
  log?: (line: string) => void
  /**
   * Whether malloc_trim follows the collection (default true). It works on the whole process, so one thread calls
   * it: the main thread. A worker thread collects only its own heap.
   */
  mallocTrim?: boolean
  /**
   * The size whose growth the rule watches, bytes (default: the process's resident set). A worker watches its own
   * heap: the main thread's trim can lower the resident set below where the worker started.
   */
  size?: () => number
}

/**
 * Checks this thread every CHECK_MS while it runs (without keeping it alive), and collects its heap once it is quiet
 * after what it watches (`size`) grew. The main thread also collects at its first rest (`collectAtFirstRest`):
 * compiling, stripping types and building the genesis fill the young generation up to its limit, and V8 keeps it that
 * size until a collection that reduces memory (measured with --max-semi-space-size=16: 165 MB resident at idle
 * without it, 138 MB with it). That collection took 30–80 ms, which the start no longer waits for. Needs `gc`, which Node exposes to every thread with --expose-gc (`npm start` and
 * bin/flashchain.js pass it); without it, does nothing. Returns the stop function.
 *
 * Each thread has to collect its own heap: a collection that reduces memory is also what gives back V8's pool of
 * free pages, the pages that collections under load emptied and that V8 keeps for the heap to grow into again.
 * Measured after a minute of eth_estimateGas, an execution worker held 30–37 MB in that pool beside a 30 MB heap.
 */
export function startMemoryTrim(options: StartMemoryTrimOptions = {}): () => void {
  const { log, mallocTrim = true, size = () => process.memoryUsage.rss(), ...rule } = options
  if (globalThis.gc === undefined) return () => {}
  let last: EventLoopUtilization = performance.eventLoopUtilization()
  const readings: MemoryTrimReadings = {
    utilization: () => {
      const now = performance.eventLoopUtilization()
      const since = performance.eventLoopUtilization(now, last)
      last = now
      return since.utilization
    },
    size,
    now: () => performance.now(),
    collect: () => {
      const collection = collectFully()
      if (collection === undefined) return
      const took = collection.ms.toFixed(0)
      const trimMalloc = mallocTrim ? glibcMallocTrim() : null
      if (trimMalloc === null) {
        log?.(`memory trim: ${resident(collection)}, ${took} ms`)
        return
      }
      setTimeout(() => {
        const trimStarted = performance.now()
        trimMalloc()
        const trimmed = process.memoryUsage.rss()
        trim.rested(size())
        log?.(
          `memory trim: ${resident(collection)} after the collection (${took} ms), ` +
            `${mb(trimmed)} MB after malloc_trim (${(performance.now() - trimStarted).toFixed(0)} ms)`,
        )
      }, SWEEP_MS).unref()
    },
  }
  const trim = createMemoryTrim(readings, rule)
  const timer = setInterval(() => trim.check(), CHECK_MS)
  timer.unref()
  return () => clearInterval(timer)
}

/**
 * The trim an execution worker runs on its own thread: a worker left idle exits after `minGapMs` (WORKER_IDLE_MS);
 * before that, a few seconds after its runs stop, it gives back what the load grew its heap to. It watches its own
 * heap, since the process's resident set also moves with the main thread's trims (a worker started mid-load saw it
 * fall below where it started, and skipped its collection), and collects whenever that heap has grown and it goes
 * quiet, at most once per `minGapMs`: a pause between two loads must not use up the collection the end of the second
 * needs, and traffic too light to keep a worker busy costs at most one collection (40–50 ms, on its own thread) per
 * that time. malloc_trim is the main thread's to call.
 */
export function startWorkerMemoryTrim(minGapMs: number): () => void {
  return startMemoryTrim({ mallocTrim: false, size: () => getHeapStatistics().total_heap_size, growthBytes: 0, minGapMs })
}
