import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'

import { createChainEvents } from '../events.ts'
import { createRecentFlashblocks } from './recentFlashblocks.ts'

import type { Flashblock } from '../types.ts'
import type { Hex } from '../../hex.ts'

/** A flashblock of block `number` at `index` with `transactions` transactions; only what the keeper reads is real. */
function flashblock(number: bigint, index: number, transactions = 0): Flashblock {
  return {
    number,
    index,
    transactions: Array.from({ length: transactions }, (_, i) => ({ hash: `0x${i}` as Hex })),
  } as unknown as Flashblock
}

const ids = (flashblocks: Flashblock[] | undefined) => flashblocks?.map((frame) => `${frame.number}.${frame.index}`)

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate'] })
})

afterEach(() => {
  vi.useRealTimers()
})

describe('recent flashblocks', () => {
  test('kept from the first reader on, in order across blocks; asking past the newest is nothing yet', async () => {
    const events = createChainEvents<Flashblock>(() => {})
    const recent = createRecentFlashblocks(events)
    events.announce(() => flashblock(1n, 0))
    const release = recent.hold()
    expect(events.listening).toBe(true)
    for (const frame of [flashblock(1n, 1), flashblock(1n, 2), flashblock(2n, 0), flashblock(2n, 1)]) events.announce(() => frame)
    await vi.runAllTimersAsync()
    // 1.0 came before anyone listened: the block is kept from 1.1.
    expect(recent.since(1n, 0)).toBeUndefined()
    expect(recent.oldest()).toEqual({ number: 1n, index: 1 })
    expect(ids(recent.since(1n, 2))).toEqual(['1.2', '2.0', '2.1'])
    expect(recent.since(2n, 2)).toEqual([])
    expect(recent.since(3n, 0)).toEqual([])
    release()
  })

  test('a block number seen again (a revert) replaces it and what came after it', async () => {
    const events = createChainEvents<Flashblock>(() => {})
    const recent = createRecentFlashblocks(events)
    recent.hold()
    for (const frame of [flashblock(5n, 0), flashblock(5n, 1, 2), flashblock(6n, 0), flashblock(5n, 0), flashblock(5n, 1, 1)]) {
      events.announce(() => frame)
    }
    await vi.runAllTimersAsync()
    expect(ids(recent.since(5n, 0))).toEqual(['5.0', '5.1'])
    expect(recent.since(5n, 1)![0]!.transactions).toHaveLength(1)
    expect(recent.since(6n, 0)).toEqual([])
  })

  test('at most `blocks` blocks and `transactions` transactions, the oldest blocks given up first, never the newest', async () => {
    const events = createChainEvents<Flashblock>(() => {})
    const recent = createRecentFlashblocks(events, { blocks: 3, transactions: 10 })
    recent.hold()
    for (let number = 1n; number <= 5n; number++) events.announce(() => flashblock(number, 0, 1))
    await vi.runAllTimersAsync()
    expect(recent.oldest()).toEqual({ number: 3n, index: 0 })
    events.announce(() => flashblock(6n, 0, 9))
    await vi.runAllTimersAsync()
    // 5 + 6 hold 10 transactions; 4 made it 11.
    expect(recent.oldest()).toEqual({ number: 5n, index: 0 })
    events.announce(() => flashblock(7n, 0, 20))
    await vi.runAllTimersAsync()
    expect(ids(recent.since(7n, 0))).toEqual(['7.0'])
    expect(recent.oldest()).toEqual({ number: 7n, index: 0 })
  })

  test('kept for the grace after the last reader leaves, then forgotten and no longer listened for', async () => {
    const events = createChainEvents<Flashblock>(() => {})
    const recent = createRecentFlashblocks(events, { graceMs: 1000 })
    const first = recent.hold()
    const second = recent.hold()
    events.announce(() => flashblock(1n, 0))
    await vi.runAllTimersAsync()
    first()
    first()
    await vi.advanceTimersByTimeAsync(5000)
    // One reader is left: nothing is released.
    expect(ids(recent.since(1n, 0))).toEqual(['1.0'])
    second()
    await vi.advanceTimersByTimeAsync(999)
    expect(ids(recent.since(1n, 0))).toEqual(['1.0'])
    expect(events.listening).toBe(true)
    // A reader back within the grace keeps them.
    const third = recent.hold()
    await vi.advanceTimersByTimeAsync(5000)
    expect(ids(recent.since(1n, 0))).toEqual(['1.0'])
    third()
    await vi.advanceTimersByTimeAsync(1000)
    expect(recent.since(1n, 0)).toBeUndefined()
    expect(recent.oldest()).toBeUndefined()
    expect(events.listening).toBe(false)
  })
})
