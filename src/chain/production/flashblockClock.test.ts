import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'

import { createFlashblockClock } from './flashblockClock.ts'

import type { ClockTurns } from './flashblockClock.ts'

/**
 * Turns that record when each step ran and the deadline it was given, on the fake clock; `include` reports a backlog
 * as told, and each publication takes the time `publishing` gives it in turn (none once it runs out).
 */
function recordingTurns(backlogs: boolean[], publishing: number[] = []) {
  const steps: { step: string; at: number; until?: number }[] = []
  let queue: Promise<unknown> = Promise.resolve()
  const turns: ClockTurns = {
    serially(work) {
      const result = queue.then(work)
      queue = result.catch(() => {})
      return result
    },
    begin: async () => steps.push({ step: 'begin', at: performance.now() }),
    async include(until, sealing) {
      steps.push({ step: sealing ? 'include to seal' : 'include', at: performance.now(), until })
      return backlogs.shift() ?? false
    },
    async preconfirm(until) {
      steps.push({ step: 'preconfirm', at: performance.now(), until })
      const ms = publishing.shift()
      if (ms !== undefined) vi.advanceTimersByTime(ms)
    },
    async seal(until) {
      steps.push({ step: 'seal', at: performance.now(), until })
    },
    log: (line) => {
      throw new Error(line)
    },
  }
  return { turns, steps }
}

/** Runs the clock on `turns` (200 ms flashblocks, `blockTime`) for `ms` of fake time: each step as [step, at, until], from its start. */
async function run(turns: ClockTurns, steps: ReturnType<typeof recordingTurns>['steps'], blockTime: number, ms: number) {
  const clock = createFlashblockClock(turns)
  const origin = performance.now()
  clock.start({ blockTime, flashblockInterval: 200 })
  await vi.advanceTimersByTimeAsync(ms)
  clock.stop()
  return steps.map(({ step, at, until }) => [step, at - origin, until === undefined ? undefined : until - origin])
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
})

afterEach(() => {
  vi.useRealTimers()
})

describe('the flashblock clock', () => {
  test('each turn executes up to its deadline, 50 ms after it starts, and takes what came meanwhile for 10 ms more', async () => {
    const { turns, steps } = recordingTurns([])
    expect(await run(turns, steps, 600, 650)).toEqual([
      ['begin', 0, undefined],
      ['include', 200, 250],
      ['preconfirm', 250, 260],
      ['include', 400, 450],
      ['preconfirm', 450, 460],
      // The third flashblock of a 600 ms block seals it; under no load its inclusion leaves no room for the seal.
      ['include', 600, 650],
      ['seal', 650, 660],
    ])
  })

  test('a turn that ran out of time publishes what it took at once, and the next starts at once, toward its own deadline', async () => {
    const { turns, steps } = recordingTurns([true, false])
    expect(await run(turns, steps, 2000, 700)).toEqual([
      ['begin', 0, undefined],
      // A backlog: inclusion ran out of time, so what it took goes out at once, and the next turn starts right after
      // (a timer of 0 fires after 1 ms) and executes until its own deadline.
      ['include', 200, 250],
      ['preconfirm', 200, 200],
      ['include', 201, 450],
      ['preconfirm', 450, 460],
      // No backlog: back to starting 50 ms ahead.
      ['include', 600, 650],
      ['preconfirm', 650, 660],
    ])
  })

  test('under load, the last flashblock of a block leaves room for the seal', async () => {
    const { turns, steps } = recordingTurns([false, true])
    expect(await run(turns, steps, 600, 650)).toEqual([
      ['begin', 0, undefined],
      ['include', 200, 250],
      ['preconfirm', 250, 260],
      ['include', 400, 450],
      ['preconfirm', 400, 400],
      // The turn before left a backlog: the sealing turn starts at once, and its inclusion knows it seals.
      ['include to seal', 401, 650],
      ['seal', 650, 660],
    ])
  })
})
