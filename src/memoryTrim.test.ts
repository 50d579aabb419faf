import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

import { describe, expect, test } from 'vitest'

import { createMemoryTrim, MIN_COLLECTION_GAP_MS } from './memoryTrim.ts'

const run = promisify(execFile)

const MB = 2 ** 20

/** A process whose readings the test sets, counting collections; a collection brings the RSS down to `live`. */
function fakeProcess(rss: number) {
  const state = { rss, utilization: 0, live: rss, collections: 0, now: 0 }
  const trim = createMemoryTrim({
    utilization: () => state.utilization,
    rss: () => state.rss,
    now: () => state.now,
    collect: () => {
      state.collections++
      state.rss = state.live
    },
  })
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
})

/** glibc's version where it is the C library (not on musl, macOS or Windows). */
const glibc = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime

describe.runIf(glibc !== undefined)('glibcMallocTrim', () => {
  test('gives back the free pages between live malloc allocations', async () => {
    // 500k typed arrays of 200–300 bytes, each a malloc allocation of its own (V8 keeps only those of 64 bytes or
    // less in its heap); one in 64 stays alive, so almost every page of the arena is free but none is at its top.
    const script = `
      import { glibcMallocTrim } from './src/memoryTrim.ts'
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
      cwd: new URL('..', import.meta.url),
      timeout: 20_000,
    })
    const { bound, freedMB, kept } = JSON.parse(stdout) as { bound: boolean; freedMB: number; kept: number }
    expect(bound).toBe(true)
    expect(kept).toBe(7815)
    // About 125 MB of arrays died; 80 MB came back in trial runs, none without the trim.
    expect(freedMB).toBeGreaterThan(40)
  })
})
