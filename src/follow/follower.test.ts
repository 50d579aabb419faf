/**
 * createFollower against a fake chain: the order frames are applied in (by `sequence`), early frames waiting for the
 * missing ones and the gap fetched after `gapWaitMs`, duplicates dropped, resyncs (a refused frame, a gap the sequencer
 * no longer keeps, at once or once the block is sealed), the numbering learned again by position after `connected()`
 * and a resync, `poll()`, and nothing handled before `start()` or after `stop()`.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'

import { createFollower } from './follower.ts'

import type { ChainEdit } from '../chain/types.ts'
import type { Frame } from './frames.ts'

type Position = { number: bigint; index: number }

const GAP_WAIT_MS = 50

function frame(sequence: number, number: number, index: number, options: { sealed?: boolean; edits?: ChainEdit[] } = {}): Frame {
  return {
    sequence,
    number: BigInt(number),
    index,
    env: undefined,
    transactions: [],
    blockHash: `0x${sequence.toString(16).padStart(64, '0')}`,
    sealed: options.sealed ?? false,
    edits: options.edits ?? [],
  }
}

/** The first `count` frames of a stream from block 1: sequence i is flashblock i % 3 of block 1 + i / 3, index 2 sealed. */
function framesOf(count: number): Frame[] {
  return Array.from({ length: count }, (_, i) => frame(i, 1 + Math.floor(i / 3), i % 3, { sealed: i % 3 === 2 }))
}

const rewindTo5: ChainEdit = { kind: 'rewind', number: 5n, writes: { accounts: new Map(), storage: new Map(), code: new Map() } }

const before = (a: Position, b: Position) => a.number < b.number || (a.number === b.number && a.index < b.index)

/**
 * A chain that takes the flashblock at `position` next, and the sequencer it follows: `sequencer` is what fetch serves
 * (every frame at or after the position asked for, oldest first), or undefined while `kept` is false. A resync moves
 * the chain to `resyncTo`. apply waits for `gate` while it is set.
 */
function fakeChain(options: { at?: Position; sequencer?: Frame[]; refuse?: (frame: Frame) => string | undefined } = {}) {
  const state = {
    position: options.at ?? { number: 1n, index: 0 },
    sequencer: options.sequencer ?? [],
    kept: true,
    resyncTo: { number: 1n, index: 0 } as Position,
    /** Sequences of the frames applied, in order. */
    applied: [] as number[],
    /** Sequences of the frames apply refused. */
    refused: [] as number[],
    fetches: [] as [bigint, number][],
    resyncs: [] as string[],
    /** While set, apply waits for it. */
    gate: undefined as Promise<void> | undefined,
    /** While set, fetch waits for it. */
    fetchGate: undefined as Promise<void> | undefined,
    /** The sequencer's head when it is not the chain's (reverted, reset, sealed on); by default it is. */
    sequencerHead: undefined as { number: bigint; hash: string } | undefined,
    /** Polls that found no frame and asked for the changes made since the last one. */
    quiet: 0,
    /** The sequence of the sequencer's next frame, as a poll asks it; by default the chain's next, nothing owed. */
    sequence: undefined as number | undefined,
    /** Run as a poll asks for the changes made since the last frame (a change made meanwhile takes effect here). */
    onQuiet: undefined as (() => void) | undefined,
    /** The sequencer's blocks are not the chain's. */
    otherChain: false,
  }
  const head = () => ({ number: state.position.number - 1n, hash: `0xhead${state.position.number - 1n}` })
  const follower = createFollower({
    async apply(frame) {
      await state.gate
      const why = options.refuse?.(frame)
      if (why !== undefined) {
        state.refused.push(frame.sequence)
        return why
      }
      state.applied.push(frame.sequence)
      const rewind = frame.edits.find((edit) => edit.kind === 'rewind')
      if (rewind !== undefined) state.position = { number: rewind.number + 1n, index: 0 }
      else if (frame.sealed) state.position = { number: frame.number + 1n, index: 0 }
      else state.position = { number: frame.number, index: frame.index + 1 }
      return undefined
    },
    expected: () => state.position,
    async fetch(number, index) {
      state.fetches.push([number, index])
      await state.fetchGate
      if (!state.kept) return undefined
      return state.sequencer.filter((f) => !before({ number: f.number, index: f.index }, { number, index }))
    },
    async resync(reason) {
      state.resyncs.push(reason)
      state.position = state.resyncTo
    },
    head,
    sequencerHead: async () => state.sequencerHead ?? head(),
    // One chain, unless a test says the sequencer's is another.
    sequencerHash: async (number) => (state.otherChain ? '0xother' : `0xhead${number}`),
    async quiet(next) {
      state.quiet++
      state.onQuiet?.()
      return { sequence: state.sequence ?? next ?? 0 }
    },
    gapWaitMs: GAP_WAIT_MS,
    log: () => {},
  })
  const receive = async (...frames: Frame[]) => {
    for (const f of frames) follower.receive(f)
    await follower.settled()
  }
  return { state, follower, receive }
}

/** Lets every pending promise run (setImmediate is not faked). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve))

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
})

afterEach(() => {
  vi.useRealTimers()
})

describe('createFollower', () => {
  test('handles nothing before start(); then the frames received meanwhile, in order', async () => {
    const { state, follower } = fakeChain()
    const [f0, f1, f2, f3] = framesOf(4)
    for (const f of [f0!, f2!, f1!, f3!]) follower.receive(f)
    await flush()
    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS * 3)
    expect(state.applied).toEqual([])
    expect(state.fetches).toEqual([])

    follower.start()
    await follower.settled()
    expect(state.applied).toEqual([0, 1, 2, 3])
    expect(state.position).toEqual({ number: 2n, index: 1 })
    expect(follower.counts.frames).toBe(4)
    expect(follower.catchingUp).toBe(false)
    expect(state.fetches).toEqual([])
  })

  test('applies frames that come in order once each', async () => {
    const { state, follower, receive } = fakeChain()
    follower.start()
    await receive(...framesOf(6))
    expect(state.applied).toEqual([0, 1, 2, 3, 4, 5])
    expect(follower.counts).toEqual({ frames: 6, gaps: 0, refetched: 0, resyncs: 0, lastResync: undefined })
    expect(state.position).toEqual({ number: 3n, index: 0 })
    expect(follower.catchingUp).toBe(false)
    expect(follower.behindSince).toBeUndefined()
    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS * 2)
    expect(state.fetches).toEqual([])
  })

  test('drops a frame seen already, applied or waiting', async () => {
    const { state, follower, receive } = fakeChain()
    const [f0, f1, f2, f3, f4] = framesOf(5)
    follower.start()
    await receive(f0!, f1!, f1!, f0!, f2!)
    expect(state.applied).toEqual([0, 1, 2])
    // 4 twice while it waits for 3: applied once.
    await receive(f4!, f4!, f3!, f4!)
    expect(state.applied).toEqual([0, 1, 2, 3, 4])
    expect(follower.counts.frames).toBe(5)
    expect(follower.catchingUp).toBe(false)
    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS * 2)
    expect(state.fetches).toEqual([])
  })

  test('an early frame waits for the one before it; no fetch when that one comes within gapWaitMs', async () => {
    const { state, follower, receive } = fakeChain()
    const [f0, f1, f2] = framesOf(3)
    follower.start()
    await receive(f0!)
    await vi.advanceTimersByTimeAsync(10)
    const cameAt = performance.now()
    await receive(f2!)
    expect(state.applied).toEqual([0])
    expect(follower.catchingUp).toBe(true)
    expect(follower.behindSince).toBe(cameAt)

    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS - 1)
    await receive(f1!)
    expect(state.applied).toEqual([0, 1, 2])
    expect(follower.catchingUp).toBe(false)
    expect(follower.behindSince).toBeUndefined()

    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS * 2)
    expect(state.fetches).toEqual([])
    expect(follower.counts).toMatchObject({ frames: 3, gaps: 0, refetched: 0, resyncs: 0 })
  })

  test('fetches what is missing after gapWaitMs: the fetched frames, then those that waited', async () => {
    const all = framesOf(6)
    // The sequencer answers with the frames up to 3: 4 and 5 came by the stream only.
    const { state, follower, receive } = fakeChain({ sequencer: all.slice(0, 4) })
    follower.start()
    await receive(all[0]!, all[1]!, all[4]!, all[5]!)
    expect(state.applied).toEqual([0, 1])

    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS - 1)
    expect(state.fetches).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    await follower.settled()
    // From the position the chain expects: block 1's flashblock 2.
    expect(state.fetches).toEqual([[1n, 2]])
    expect(state.applied).toEqual([0, 1, 2, 3, 4, 5])
    expect(follower.counts).toEqual({ frames: 6, gaps: 1, refetched: 2, resyncs: 0, lastResync: undefined })
    expect(state.resyncs).toEqual([])
    expect(follower.catchingUp).toBe(false)

    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS * 2)
    expect(state.fetches).toHaveLength(1)
  })

  test('a gap left after the fetched frames is fetched again after another gapWaitMs', async () => {
    const all = framesOf(7)
    // At first the sequencer answers with the frames up to 3 only.
    const { state, follower, receive } = fakeChain({ sequencer: all.slice(0, 4) })
    follower.start()
    await receive(all[0]!, all[1]!, all[6]!)
    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS)
    await follower.settled()
    expect(state.fetches).toEqual([[1n, 2]])
    expect(state.applied).toEqual([0, 1, 2, 3])
    expect(follower.catchingUp).toBe(true)

    state.sequencer = all
    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS - 1)
    expect(state.fetches).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    await follower.settled()
    expect(state.fetches).toEqual([
      [1n, 2],
      [2n, 1],
    ])
    expect(state.applied).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(follower.counts).toMatchObject({ frames: 7, gaps: 2, refetched: 5, resyncs: 0 })
    expect(follower.catchingUp).toBe(false)
  })

  test('fetched frames that came by the stream as well are applied once', async () => {
    const all = framesOf(6)
    const { state, follower, receive } = fakeChain({ sequencer: all })
    follower.start()
    await receive(all[0]!, all[3]!, all[5]!)
    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS)
    await follower.settled()
    expect(state.fetches).toEqual([[1n, 1]])
    expect(state.applied).toEqual([0, 1, 2, 3, 4, 5])
    expect(follower.counts).toMatchObject({ frames: 6, gaps: 1, refetched: 5, resyncs: 0 })
    expect(follower.catchingUp).toBe(false)
  })

  test('a gap the sequencer no longer keeps, with a later block begun: resync, then frames by position', async () => {
    // Block 1: sequences 0-2; block 2: 3-5; block 3: 6-8.
    const all = framesOf(9)
    const { state, follower, receive } = fakeChain({ sequencer: all })
    state.kept = false
    state.resyncTo = { number: 2n, index: 2 }
    follower.start()
    await receive(all[0]!, all[3]!)
    expect(state.applied).toEqual([0])

    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS)
    await follower.settled()
    expect(state.fetches).toEqual([[1n, 1]])
    expect(state.resyncs).toHaveLength(1)
    expect(state.resyncs[0]).toMatch(/block 1's flashblock 1/)
    expect(follower.counts).toMatchObject({ resyncs: 1, lastResync: state.resyncs[0] })
    expect(follower.catchingUp).toBe(false)

    // The snapshot holds block 2's first two flashblocks: 4 is dropped, 5 (at block 2's flashblock 2) is next.
    await receive(all[4]!, all[5]!, all[6]!)
    expect(state.applied).toEqual([0, 5, 6])
    expect(follower.counts.frames).toBe(3)
    expect(state.resyncs).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS * 2)
    expect(state.fetches).toHaveLength(1)
  })

  test('a gap the sequencer no longer keeps in the block being built: waits for the block to be sealed, then resyncs', async () => {
    // Block 1 has five flashblocks (0-4, the last sealed); block 2 begins at sequence 5.
    const block1 = [0, 1, 2, 3, 4].map((i) => frame(i, 1, i, { sealed: i === 4 }))
    const block2 = [frame(5, 2, 0), frame(6, 2, 1)]
    const { state, follower, receive } = fakeChain({ sequencer: [...block1, ...block2] })
    state.kept = false
    state.resyncTo = { number: 2n, index: 0 }
    follower.start()
    // The block began before the replica could see it: its first flashblock is not kept.
    await vi.advanceTimersByTimeAsync(5)
    const cameAt = performance.now()
    await receive(block1[2]!)

    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS)
    await follower.settled()
    expect(state.fetches).toEqual([[1n, 0]])
    expect(state.resyncs).toEqual([])
    expect(follower.catchingUp).toBe(true)
    expect(follower.behindSince).toBe(cameAt)

    // Another of block 1's, not sealed: still waiting, and not applied.
    await receive(block1[3]!)
    expect(state.resyncs).toEqual([])
    expect(follower.catchingUp).toBe(true)

    await receive(block1[4]!)
    expect(state.resyncs).toHaveLength(1)
    expect(state.resyncs[0]).toMatch(/block 1/)
    // Before its first frame, the replica is still starting: the block waited out is not counted as a resync.
    expect(follower.counts.resyncs).toBe(0)
    expect(follower.catchingUp).toBe(false)
    expect(follower.behindSince).toBeUndefined()

    await receive(...block2)
    expect(state.applied).toEqual([5, 6])
    expect(state.fetches).toHaveLength(1)
  })

  test('a gap the sequencer no longer keeps in the block being built: a frame of a later block resyncs as well', async () => {
    // Block 1 has four flashblocks (0-3, the last sealed, never received); block 2 begins at sequence 4.
    const block1 = [0, 1, 2, 3].map((i) => frame(i, 1, i, { sealed: i === 3 }))
    const block2 = [frame(4, 2, 0), frame(5, 2, 1)]
    const { state, follower, receive } = fakeChain({ sequencer: [...block1, ...block2] })
    state.kept = false
    state.resyncTo = { number: 2n, index: 1 }
    follower.start()
    await receive(block1[2]!)
    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS)
    await follower.settled()
    expect(state.resyncs).toEqual([])
    expect(follower.catchingUp).toBe(true)

    await receive(block2[0]!)
    expect(state.resyncs).toHaveLength(1)
    expect(follower.catchingUp).toBe(false)
    // The snapshot holds block 2's first flashblock.
    await receive(block2[1]!)
    expect(state.applied).toEqual([5])
    expect(state.fetches).toEqual([[1n, 0]])
  })

  test('a gap the sequencer no longer keeps mid-block, its head the chain’s: it lost the block (a restart), resync at once', async () => {
    const block1 = [0, 1, 2, 3, 4].map((i) => frame(i, 1, i, { sealed: i === 4 }))
    const { state, follower, receive } = fakeChain({ sequencer: block1 })
    state.kept = false
    follower.start()
    await receive(block1[0]!, block1[2]!)
    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS)
    await follower.settled()
    expect(state.fetches).toEqual([[1n, 1]])
    expect(state.resyncs).toHaveLength(1)
  })

  test('after connected(), nothing newer from a sequencer that sealed a block since: no resync, frames are coming', async () => {
    const { state, follower } = fakeChain({ at: { number: 101n, index: 0 } })
    state.sequencerHead = { number: 101n, hash: '0xhead101' }
    follower.start()
    follower.connected()
    await follower.settled()
    expect(state.resyncs).toEqual([])
    // Another chain at the same height is elsewhere.
    state.otherChain = true
    follower.connected()
    await follower.settled()
    expect(state.resyncs).toEqual(["the sequencer's head is not this chain's"])
  })

  test('a gap the sequencer no longer keeps, with its head elsewhere (sealed on unseen, reverted): resync at once', async () => {
    const block1 = [0, 1, 2, 3, 4].map((i) => frame(i, 1, i, { sealed: i === 4 }))
    const { state, follower, receive } = fakeChain({ sequencer: block1 })
    state.kept = false
    state.sequencerHead = { number: 0n, hash: '0xother' }
    follower.start()
    await receive(block1[0]!, block1[2]!)
    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS)
    await follower.settled()
    expect(state.resyncs).toHaveLength(1)
    expect(follower.catchingUp).toBe(false)
  })

  test("after connected(), nothing newer from a sequencer whose head is not the chain's (a revert missed): resync", async () => {
    const { state, follower, receive } = fakeChain({ at: { number: 101n, index: 0 } })
    state.resyncTo = { number: 51n, index: 0 }
    follower.start()
    follower.connected()
    await follower.settled()
    expect(state.fetches).toEqual([[101n, 0]])
    expect(state.resyncs).toEqual([])

    state.sequencerHead = { number: 50n, hash: '0xhead50' }
    follower.connected()
    await follower.settled()
    expect(state.resyncs).toEqual(["the sequencer's head is not this chain's"])
    // The frames of the reverted chain are taken by position from there.
    await receive(frame(7, 51, 0))
    expect(state.applied).toEqual([7])
  })

  test('frames waiting behind one that runs are lag: behindSince is when the oldest of them came', async () => {
    const { state, follower } = fakeChain()
    let open!: () => void
    state.gate = new Promise((resolve) => {
      open = resolve
    })
    follower.start()
    const frames = framesOf(3)
    follower.receive(frames[0]!)
    await flush()
    await vi.advanceTimersByTimeAsync(7)
    const cameAt = performance.now()
    follower.receive(frames[1]!)
    follower.receive(frames[2]!)
    expect(follower.behindSince).toBe(cameAt)
    open()
    await follower.settled()
    expect(state.applied).toEqual([0, 1, 2])
    expect(follower.behindSince).toBeUndefined()
  })

  test('a frame that apply refuses: resync with its reason, then frames by position', async () => {
    const all = framesOf(6)
    const { state, follower, receive } = fakeChain({ refuse: (f) => (f.sequence === 1 ? 'block hash 0xabc is not 0xdef' : undefined) })
    state.resyncTo = { number: 2n, index: 0 }
    follower.start()
    await receive(all[0]!, all[1]!)
    expect(state.refused).toEqual([1])
    expect(state.resyncs).toHaveLength(1)
    expect(state.resyncs[0]).toContain('block hash 0xabc is not 0xdef')
    expect(follower.counts).toMatchObject({ frames: 1, resyncs: 1, lastResync: state.resyncs[0] })

    // 2 is behind the snapshot (block 1 sealed): dropped; 3 is block 2's first, the next.
    await receive(all[2]!, all[3]!, all[4]!)
    expect(state.applied).toEqual([0, 3, 4])
    expect(follower.counts.frames).toBe(3)
    expect(follower.catchingUp).toBe(false)
    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS * 2)
    expect(state.fetches).toEqual([])
    expect(state.resyncs).toHaveLength(1)
  })

  test('after connected(): drops a frame behind the chain, applies the one at its position and one that rewinds', async () => {
    const { state, follower, receive } = fakeChain({ at: { number: 7n, index: 0 } })
    follower.start()
    await receive(frame(0, 7, 0), frame(1, 7, 1))
    expect(state.applied).toEqual([0, 1])

    // Numbered anew (the sequencer started again): only positions tell.
    follower.connected()
    await follower.settled()
    expect(state.fetches).toEqual([[7n, 2]])
    await receive(frame(20, 7, 1))
    expect(state.applied).toEqual([0, 1])
    expect(follower.catchingUp).toBe(false)
    await receive(frame(21, 7, 2), frame(22, 7, 3))
    expect(state.applied).toEqual([0, 1, 21, 22])

    follower.connected()
    await follower.settled()
    expect(state.fetches).toEqual([
      [7n, 2],
      [7n, 4],
    ])
    // Block 6's first flashblock is behind the chain (block 7's flashblock 4), but it rewinds to block 5.
    await receive(frame(30, 6, 0, { edits: [rewindTo5] }))
    expect(state.applied).toEqual([0, 1, 21, 22, 30])
    expect(state.position).toEqual({ number: 6n, index: 0 })
    await receive(frame(31, 6, 0))
    expect(state.applied).toEqual([0, 1, 21, 22, 30, 31])

    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS * 2)
    expect(state.fetches).toHaveLength(2)
    expect(state.resyncs).toEqual([])
    expect(follower.counts.frames).toBe(6)
  })

  test('after connected(): the frames fetched from the chain position are applied', async () => {
    const all = framesOf(5)
    const { state, follower, receive } = fakeChain({ sequencer: all })
    follower.start()
    await receive(all[0]!, all[1]!)
    follower.connected()
    await follower.settled()
    expect(state.fetches).toEqual([[1n, 2]])
    expect(state.applied).toEqual([0, 1, 2, 3, 4])
    expect(follower.counts).toMatchObject({ frames: 5, refetched: 3, gaps: 0, resyncs: 0 })
    // The stream's copies: seen already.
    await receive(all[2]!, all[3]!, all[4]!)
    expect(state.applied).toEqual([0, 1, 2, 3, 4])
  })

  test('poll(): true when the sequencer has frames after the newest applied, which are applied; false when it has none', async () => {
    const all = framesOf(4)
    const { state, follower, receive } = fakeChain({ sequencer: all })
    follower.start()
    await receive(all[0]!, all[1]!)
    expect(await follower.poll()).toBe(true)
    expect(state.fetches).toEqual([[1n, 2]])
    expect(state.applied).toEqual([0, 1, 2, 3])
    expect(follower.counts).toMatchObject({ frames: 4, refetched: 2, gaps: 0, resyncs: 0 })
    // Each poll asks first for the changes made since the last frame (a revert may have moved the chain back).
    expect(state.quiet).toBe(1)

    expect(await follower.poll()).toBe(false)
    expect(state.fetches).toEqual([
      [1n, 2],
      [2n, 1],
    ])
    expect(state.applied).toEqual([0, 1, 2, 3])
    expect(state.quiet).toBe(2)
  })

  test('a poll is not catching up while it asks, only once the sequencer has frames for it', async () => {
    const all = framesOf(4)
    const { state, follower, receive } = fakeChain({ sequencer: all.slice(0, 2) })
    follower.start()
    await receive(all[0]!, all[1]!)
    let open!: () => void
    state.fetchGate = new Promise((resolve) => {
      open = resolve
    })
    const polled = follower.poll()
    await flush()
    // Asking, with nothing behind it known: following.
    expect(state.fetches).toEqual([[1n, 2]])
    expect(follower.catchingUp).toBe(false)
    open()
    expect(await polled).toBe(false)

    // The sequencer has two frames more: catching up while they are applied.
    state.sequencer = all
    state.fetchGate = undefined
    let release!: () => void
    state.gate = new Promise((resolve) => {
      release = resolve
    })
    const found = follower.poll()
    await flush()
    expect(follower.catchingUp).toBe(true)
    release()
    expect(await found).toBe(true)
    expect(follower.catchingUp).toBe(false)
    expect(state.applied).toEqual([0, 1, 2, 3])
  })

  test('a poll that finds the chain’s place lost while the stream owes frames (a revert sent meanwhile): waits for them, once', async () => {
    const all = framesOf(5)
    const rewindTo1: ChainEdit = { ...rewindTo5, number: 1n }
    // The sequencer went back to block 1 after frame 4, and sent the frame that says so: block 2 again.
    const reverted = frame(5, 2, 0, { edits: [rewindTo1] })
    const { state, follower, receive } = fakeChain({ sequencer: all })
    follower.start()
    await receive(...all)
    state.kept = false
    state.sequence = 6
    expect(await follower.poll()).toBe(false)
    expect(state.resyncs).toEqual([])
    await receive(reverted, frame(6, 2, 1))
    expect(state.applied).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(follower.counts).toMatchObject({ frames: 7, resyncs: 0 })

    // Owed still at the next poll: the stream is stuck, and the replica starts again.
    state.sequence = 9
    expect(await follower.poll()).toBe(false)
    expect(state.resyncs).toEqual([])
    expect(await follower.poll()).toBe(true)
    expect(state.resyncs).toEqual(["block 2's flashblock 2 is no longer kept by the sequencer"])
    expect(follower.counts).toMatchObject({ resyncs: 1 })
  })

  test('a poll that finds the chain’s place lost after a revert made since it asked: asking again takes the revert', async () => {
    const all = framesOf(5)
    const { state, follower, receive } = fakeChain({ sequencer: all })
    follower.start()
    await receive(...all)
    // Nothing owed when the poll asks; then the sequencer goes back to block 1, and keeps nothing of block 2 on.
    let asked = 0
    state.onQuiet = () => {
      if (++asked === 1) state.kept = false
      // Asked again: the revert is among the changes no frame has told yet, and the chain takes it.
      else {
        state.position = { number: 2n, index: 0 }
        state.kept = true
      }
    }
    state.sequencer = []
    expect(await follower.poll()).toBe(false)
    expect(state.fetches.slice(-2)).toEqual([
      [2n, 2],
      [2n, 0],
    ])
    expect(state.quiet).toBe(2)
    expect(state.resyncs).toEqual([])
    expect(follower.counts).toMatchObject({ resyncs: 0 })
  })

  test('a poll that finds the chain’s place lost, with nothing owed and nothing to take: one resync, with its reason', async () => {
    const all = framesOf(5)
    const { state, follower, receive } = fakeChain({ sequencer: all })
    follower.start()
    await receive(...all)
    state.kept = false
    expect(await follower.poll()).toBe(true)
    expect(state.quiet).toBe(2)
    expect(state.resyncs).toEqual(["block 2's flashblock 2 is no longer kept by the sequencer"])
    expect(follower.counts).toMatchObject({ resyncs: 1, lastResync: "block 2's flashblock 2 is no longer kept by the sequencer" })
  })

  // Fails: fill() goes on offering the fetched frames after one of them was refused and the chain resynced.
  test('a fetched frame that apply refuses: one resync, with its reason', async () => {
    const all = framesOf(7)
    const { state, follower, receive } = fakeChain({
      sequencer: all,
      refuse: (f) => (f.sequence === 1 ? 'block hash 0xabc is not 0xdef' : undefined),
    })
    // The snapshot is past every fetched frame: block 3's first flashblock is next.
    state.resyncTo = { number: 3n, index: 0 }
    follower.start()
    await receive(all[0]!, all[3]!)
    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS)
    await follower.settled()
    expect(state.fetches).toEqual([[1n, 1]])
    expect(state.refused).toEqual([1])
    expect(state.resyncs).toHaveLength(1)
    expect(state.resyncs[0]).toContain('block hash 0xabc is not 0xdef')
    expect(follower.counts).toMatchObject({ resyncs: 1, lastResync: state.resyncs[0] })

    await receive(all[6]!)
    expect(state.applied).toEqual([0, 6])
  })

  // Fails: connected() forgets the numbering at once, not in turn with the frames received before it, so a frame of the
  // old connection still waiting to be handled sets it again, and the new connection's frames are dropped as seen.
  test('connected() while frames of the old connection wait: the new connection is numbered by position', async () => {
    const { state, follower, receive } = fakeChain()
    let open!: () => void
    state.gate = new Promise<void>((resolve) => {
      open = resolve
    })
    follower.start()
    follower.receive(frame(100, 1, 0))
    follower.receive(frame(101, 1, 1))
    await flush()
    expect(state.applied).toEqual([])
    // The sequencer started again: its stream numbers frames from 0.
    follower.connected()
    state.gate = undefined
    open()
    await follower.settled()
    expect(state.applied).toEqual([100, 101])
    expect(state.fetches).toEqual([[1n, 2]])

    await receive(frame(0, 1, 2, { sealed: true }), frame(1, 2, 0))
    expect(state.applied).toEqual([100, 101, 0, 1])
  })

  test('stop(): no frame is applied or fetched afterwards', async () => {
    const all = framesOf(5)
    const { state, follower, receive } = fakeChain({ sequencer: all })
    follower.start()
    await receive(all[0]!, all[2]!)
    expect(state.applied).toEqual([0])
    follower.stop()
    await receive(all[1]!, all[3]!)
    await vi.advanceTimersByTimeAsync(GAP_WAIT_MS * 3)
    expect(await follower.poll()).toBe(false)
    follower.connected()
    await follower.settled()
    expect(state.applied).toEqual([0])
    expect(state.fetches).toEqual([])
    expect(state.resyncs).toEqual([])
  })
})
