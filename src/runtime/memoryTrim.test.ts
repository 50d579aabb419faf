import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

import { describe, expect, test } from 'vitest'

import { createMemoryTrim, MIN_COLLECTION_GAP_MS } from './memoryTrim.ts'

import type { MemoryTrimRule } from './memoryTrim.ts'

const run = promisify(execFile)

const MB = 2 ** 20

/** A process whose readings the test sets, counting collections; a collection brings the RSS down to `live`. */
function fakeProcess(rss: number, rule?: MemoryTrimRule) {
  const state = { rss, utilization: 0, live: rss, collections: 0, now: 0 }
  const trim = createMemoryTrim(
    {
      utilization: () => state.utilization,
      size: () => state.rss,
      now: () => state.now,
      collect: () => {
        state.collections++
        state.rss = state.live
      },
    },
    rule,
  )
  return { state, trim }
}

describe('createMemoryTrim', () => {
  test('collects once the process is quiet after growing; not again until it grows again', () => {
    const { state, trim } = fakeProcess(120 * MB)
    state.rss = 370 * MB
    state.live = 180 * MB
    expect(trim.check()).toBe(true)
    expect(state.collections).toBe(1)
    expect(state.rss).toBe(180 * MB)
    // At rest after the collection: nothing more to give back.
    expect(trim.check()).toBe(false)
    state.rss = 200 * MB
    expect(trim.check()).toBe(false)
    // Grown by 32 MB or more since the collection: worth another, once half a minute has passed since the first.
    state.rss = 212 * MB
    state.now = MIN_COLLECTION_GAP_MS - 1
    expect(trim.check()).toBe(false)
    state.now = MIN_COLLECTION_GAP_MS
    expect(trim.check()).toBe(true)
    expect(state.collections).toBe(2)
  })

  test('never collects while the process is busy, however large it grew', () => {
    const { state, trim } = fakeProcess(120 * MB)
    state.rss = 600 * MB
    state.utilization = 0.5
    expect(trim.check()).toBe(false)
    state.utilization = 0.02
    expect(trim.check()).toBe(false)
    expect(state.collections).toBe(0)
    state.utilization = 0.01
    expect(trim.check()).toBe(true)
  })

  test('memory given back after the collection lowers the resting point growth is measured from', () => {
    const { state, trim } = fakeProcess(120 * MB)
    state.rss = 300 * MB
    state.live = 200 * MB
    expect(trim.check()).toBe(true)
    // malloc_trim, a moment after the collection, gave back another 60 MB.
    trim.rested(140 * MB)
    state.rss = 175 * MB
    state.now += MIN_COLLECTION_GAP_MS
    expect(trim.check()).toBe(true)
    expect(state.collections).toBe(2)
    // At rest at 200 MB now; a reading above that does not raise it.
    trim.rested(260 * MB)
    state.now += MIN_COLLECTION_GAP_MS
    state.rss = 231 * MB
    expect(trim.check()).toBe(false)
    state.rss = 233 * MB
    expect(trim.check()).toBe(true)
  })

  test('growth below 32 MB since the start is left alone', () => {
    const { state, trim } = fakeProcess(120 * MB)
    state.rss = 151 * MB
    expect(trim.check()).toBe(false)
    expect(state.collections).toBe(0)
  })

  test('collectAtFirstRest: the first quiet check collects the start-up garbage without growth; a busy one waits', () => {
    const { state, trim } = fakeProcess(140 * MB, { collectAtFirstRest: true })
    state.live = 110 * MB
    state.utilization = 0.4
    expect(trim.check()).toBe(false)
    state.utilization = 0
    expect(trim.check()).toBe(true)
    expect(state.rss).toBe(110 * MB)
    // After it, the usual rule: growth of 32 MB from the rest it reached, half a minute on.
    state.now = MIN_COLLECTION_GAP_MS
    state.rss = 130 * MB
    expect(trim.check()).toBe(false)
    expect(state.collections).toBe(1)
  })

  test("a worker's rule (no growth, its own gap) collects whenever quiet, once per gap", () => {
    const { state, trim } = fakeProcess(220 * MB, { growthBytes: 0, minGapMs: 10_000 })
    state.live = 150 * MB
    state.utilization = 0.3
    expect(trim.check()).toBe(false)
    state.utilization = 0
    expect(trim.check()).toBe(true)
    state.now = 9_999
    expect(trim.check()).toBe(false)
    state.now = 10_000
    expect(trim.check()).toBe(true)
    expect(state.collections).toBe(2)
  })
})

describe('startMemoryTrim with collectAtFirstRest', () => {
  test("gives back the young generation that start-up's garbage grew, once the process is at rest", async () => {
    // Short-lived objects that survive a scavenge or two, as start-up's do, grow the young generation to its limit;
    // V8 keeps it that size while the process idles.
    const script = `
      import { getHeapSpaceStatistics } from 'node:v8'
      import { startMemoryTrim } from './src/runtime/memoryTrim.ts'
      const young = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size / 2 ** 20
      let kept = []
      for (let i = 0; i < 2_000_000; i++) {
        kept.push({ i, label: 'entry ' + i })
        if (kept.length === 50_000) kept = []
      }
      kept = null
      const before = young()
      // The first check comes a few seconds on, with the process idle, and logs the collection.
      const lines = await new Promise((resolve) => {
        const timer = setTimeout(() => resolve([]), 15_000)
        const stop = startMemoryTrim({
          mallocTrim: false,
          collectAtFirstRest: true,
          log(line) {
            stop()
            clearTimeout(timer)
            resolve([line])
          },
        })
      })
      process.stdout.write(JSON.stringify({ before, after: young(), lines }))
    `
    const { stdout } = await run(process.execPath, ['--expose-gc', '--max-semi-space-size=16', '--input-type=module', '-e', script], {
      cwd: new URL('../..', import.meta.url),
      timeout: 60_000,
    })
    const { before, after, lines } = JSON.parse(stdout) as { before: number; after: number; lines: string[] }
    expect(before).toBeGreaterThanOrEqual(8)
    expect(after).toBeLessThan(before / 2)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^memory trim: \d+ → \d+ MB resident, \d+ ms$/)
  })
})

describe('startMemoryTrim', () => {
  test('a worker thread collects its own heap a few seconds after its work stops', async () => {
    // Two worker threads each leave about 70 MB of garbage in their heaps and go quiet; only one runs the execution
    // workers' trim. The parent reads both heaps from outside until the trimmed one has halved. V8's own memory
    // reducer, which would shrink the other heap some 8 s after its work, is off: the other shows what the heap does
    // without the trim however long a loaded machine takes.
    const script = `
      import { Worker } from 'node:worker_threads'
      const body = \`
        import { parentPort, workerData } from 'node:worker_threads'
        if (workerData.trim) (await import(workerData.url)).startWorkerMemoryTrim(10_000)
        let kept = []
        for (let i = 0; i < 250_000; i++) kept.push({ i, pair: [i, i + 1], label: 'entry ' + i })
        kept = null
        parentPort.postMessage('loaded')
        setInterval(() => {}, 1000)
      \`
      const url = new URL('./src/runtime/memoryTrim.ts', import.meta.url).href
      const start = (trim) =>
        new Promise((resolve) => {
          const worker = new Worker(body, { eval: true, workerData: { trim, url } })
          worker.once('message', () => resolve(worker))
        })
      const heaps = async (...workers) =>
        Promise.all(workers.map(async (worker) => (await worker.getHeapStatistics()).total_heap_size / 2 ** 20))
      const trimmed = await start(true)
      const untrimmed = await start(false)
      const loaded = await heaps(trimmed, untrimmed)
      let now = loaded
      for (let i = 0; i < 100 && now[0] > loaded[0] / 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 250))
        now = await heaps(trimmed, untrimmed)
      }
      process.stdout.write(JSON.stringify({ loaded, now }))
      process.exit(0)
    `
    const { stdout } = await run(process.execPath, ['--expose-gc', '--no-memory-reducer', '--input-type=module', '-e', script], {
      cwd: new URL('../..', import.meta.url),
      timeout: 60_000,
    })
    const { loaded, now } = JSON.parse(stdout) as { loaded: [number, number]; now: [number, number] }
    expect(loaded[0]).toBeGreaterThan(40)
    expect(loaded[1]).toBeGreaterThan(40)
    // In trial runs: 70 → 5 MB within 4 s for the trimmed thread; the other kept its heap as it was.
    expect(now[0]).toBeLessThan(loaded[0] / 2)
    expect(now[1]).toBeGreaterThan(loaded[1] * 0.9)
  })
})

/** glibc's version where it is the C library (not on musl, macOS or Windows). */
const glibc = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime

describe.runIf(glibc !== undefined)('glibcMallocTrim', () => {
  test('gives back the free pages between live malloc allocations', async () => {
    // 500k typed arrays of 200–300 bytes, each a malloc allocation of its own (V8 keeps only those of 64 bytes or
    // less in its heap); one in 64 stays alive, so almost every page of the arena is free but none is at its top.
    const script = `
      import { glibcMallocTrim } from './src/runtime/memoryTrim.ts'
      const rss = () => process.memoryUsage.rss() / 2 ** 20
      const kept = []
      for (let round = 0; round < 5; round++) {
        const all = []
        for (let i = 0; i < 100_000; i++) all.push(new Uint8Array(200 + (i % 7) * 16))
        for (let i = 0; i < all.length; i += 64) kept.push(all[i])
      }
      gc({ type: 'major', execution: 'sync' })
      await new Promise((resolve) => setTimeout(resolve, 300))
      const before = rss()
      const trim = glibcMallocTrim()
      trim?.()
      process.stdout.write(JSON.stringify({ bound: trim !== null, freedMB: before - rss(), kept: kept.length }))
    `
    const { stdout } = await run(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
      cwd: new URL('../..', import.meta.url),
      timeout: 60_000,
    })
    const { bound, freedMB, kept } = JSON.parse(stdout) as { bound: boolean; freedMB: number; kept: number }
    expect(bound).toBe(true)
    expect(kept).toBe(7815)
    // About 125 MB of arrays died; 80 MB came back in trial runs, none without the trim.
    expect(freedMB).toBeGreaterThan(40)
  })
})
