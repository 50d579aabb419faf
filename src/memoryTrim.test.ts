import { describe, expect, test } from 'vitest'

import { createMemoryTrim } from './memoryTrim.ts'

const MB = 2 ** 20

/** A process whose readings the test sets, counting collections; a collection brings the RSS down to `live`. */
function fakeProcess(rss: number) {
  const state = { rss, utilization: 0, live: rss, collections: 0 }
  const trim = createMemoryTrim({
    utilization: () => state.utilization,
    rss: () => state.rss,
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
    // Grown by 32 MB or more since the collection: worth another.
    state.rss = 212 * MB
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

  test('growth below 32 MB since the start is left alone', () => {
    const { state, trim } = fakeProcess(120 * MB)
    state.rss = 151 * MB
    expect(trim.check()).toBe(false)
    expect(state.collections).toBe(0)
  })
})
