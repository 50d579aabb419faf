/**
 * The order a replica applies its sequencer's frames in (docs/scaling-out.md). Frames are numbered by the stream
 * (`flashchain_sequence`): the next one is applied at once; one that comes early waits, and if the one before it has
 * not come within `gapWaitMs`, what is missing is fetched with flashchain_getFlashblocks; one seen already is
 * dropped. A frame that does not follow from the chain, or a gap the sequencer no longer keeps, starts the replica
 * again from a new snapshot (`resync`). `pending` never shows a gap: a frame is applied only after every one before it.
 *
 * After a (re)connection or a resync the numbering is not known yet: the frame at the position the chain expects
 * (its block's next flashblock, or the next block's first) is the next one, and so is one that carries a rewind or a
 * reset, which move that position.
 */
import type { Frame } from './frames.ts'

export type FollowerParts = {
  /** Runs one frame on the chain; why it does not follow, if it does not. */
  apply(frame: Frame): Promise<string | undefined>
  /** The flashblock the chain takes next: its block's next one, or the first of the block after the head. */
  expected(): { number: bigint; index: number }
  /** The sequencer's frames from that flashblock on, oldest first; undefined when it no longer keeps it. */
  fetch(number: bigint, index: number): Promise<Frame[] | undefined>
  /** Loads a new snapshot of the sequencer's chain, for `reason`; the frames that come meanwhile wait. */
  resync(reason: string): Promise<void>
  /** The chain's newest block, and the sequencer's: whether they are one chain still, where no frame tells. */
  head(): { number: bigint; hash: string }
  sequencerHead(): Promise<{ number: bigint; hash: string }>
  /** The hash of the sequencer's block `number`, if it has one. */
  sequencerHash(number: bigint): Promise<string | undefined>
  /**
   * When a poll finds no frame: takes the test-control changes the sequencer made since its last frame, which the
   * next frame, `next` (when the numbering is known), carries; why they do not apply, if they do not, or else the
   * sequence of the sequencer's next frame (past `next` when it sent frames the stream has not brought yet).
   */
  quiet(next: number | undefined): Promise<{ refused: string } | { sequence: number }>
  /** How long a frame that came early waits for the ones before it before they are fetched, ms. */
  gapWaitMs: number
  log: (line: string) => void
}

export type Follower = {
  /** Frames received before are handled from now on: the chain is loaded. */
  start(): void
  /** A frame from the stream. */
  receive(frame: Frame): void
  /** The stream (re)connected: the numbering is not known, and what was missed meanwhile is fetched. */
  connected(): void
  /**
   * Asks the sequencer for frames after the newest applied, as when the stream is quiet: true when there were any,
   * which a stream that works would have brought (its connection is stuck).
   */
  poll(): Promise<boolean>
  /** Resolves once every frame received so far has been handled. */
  settled(): Promise<void>
  readonly counts: { frames: number; gaps: number; refetched: number; resyncs: number; lastResync: string | undefined }
  /** When the oldest frame received and not applied yet came (performance.now()), or undefined when there is none. */
  readonly behindSince: number | undefined
  readonly catchingUp: boolean
  stop(): void
}

export function createFollower(parts: FollowerParts): Follower {
  const counts: Follower['counts'] = { frames: 0, gaps: 0, refetched: 0, resyncs: 0, lastResync: undefined }
  /** The sequence of the next frame; undefined until a frame at the expected position tells it. */
  let next: number | undefined
  /** Frames that came before the ones ahead of them, by sequence, with when they came. */
  const early = new Map<number, { frame: Frame; at: number }>()
  let start!: () => void
  let queue = new Promise<void>((resolve) => {
    start = resolve
  })
  /**
   * The frames missing before those that came are not kept (the block being built began before the stream had a
   * reader): a snapshot holds them once their block is sealed, and the replica starts again then.
   */
  let awaitingSeal = false
  let awaitingSince = 0
  let gapTimer: NodeJS.Timeout | undefined
  let filling = false
  let stopped = false
  /** When each frame received and not handled yet came, oldest first: frames waiting behind a slow one are lag too. */
  const queued: number[] = []
  /** Past this many frames waiting, the replica has fallen behind for good: it drops them and starts again. */
  const MAX_QUEUED = 5000
  let overflowing = false
  /** Frames received before the last overflow are dropped unrun. */
  let generation = 0
  /** The `next` of the last poll that waited for frames the stream owed: one that finds them owed still, waits no more. */
  let waitedAt: number | undefined

  const serially = (work: () => Promise<void>) => {
    queue = queue.then(work).catch((error) => parts.log(`follow: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`))
    return queue
  }

  const atExpected = (frame: Frame) => {
    const { number, index } = parts.expected()
    return frame.number === number && frame.index === index
  }
  const movesTheChain = (frame: Frame) => frame.edits.some((edit) => edit.kind === 'rewind' || edit.kind === 'reset')
  const isBehind = (frame: Frame) => {
    const { number, index } = parts.expected()
    return frame.number < number || (frame.number === number && frame.index < index)
  }

  /**
   * `counted`: a resync the status tells. Before its first frame the replica is still starting (a block begun before
   * it connected is waited out), unless a frame did not follow from the chain it loaded.
   */
  async function resync(reason: string, counted = counts.frames > 0) {
    awaitingSeal = false
    waitedAt = undefined
    if (counted) {
      counts.resyncs++
      counts.lastResync = reason
    }
    next = undefined
    early.clear()
    clearTimeout(gapTimer)
    parts.log(`follow: starting again from the sequencer's state: ${reason}`)
    await parts.resync(reason)
  }

  /** Applies `frame` if it is the next one; true when it was. */
  async function offer(frame: Frame): Promise<boolean> {
    if (next === undefined ? !(atExpected(frame) || movesTheChain(frame)) : frame.sequence !== next) return false
    const refused = await parts.apply(frame)
    if (refused !== undefined) {
      await resync(`block ${frame.number}'s flashblock ${frame.index}: ${refused}`, true)
      return true
    }
    next = frame.sequence + 1
    counts.frames++
    return true
  }

  /** Applies the frames that waited for the one just applied. */
  async function drain() {
    while (next !== undefined) {
      const waiting = early.get(next)
      if (waiting === undefined) break
      early.delete(next)
      if (!(await offer(waiting.frame))) break
    }
    for (const sequence of early.keys()) if (next !== undefined && sequence < next) early.delete(sequence)
    if (early.size === 0) clearTimeout(gapTimer)
  }

  async function handle(frame: Frame, of: number) {
    queued.shift()
    if (stopped || of !== generation) return
    if (awaitingSeal) {
      const { number } = parts.expected()
      if (frame.number > number || (frame.number === number && frame.sealed)) {
        awaitingSeal = false
        await resync(`block ${frame.number} began before this replica could see it`)
      }
      return
    }
    if (next !== undefined && frame.sequence < next) return
    if (await offer(frame)) return drain()
    // Unnumbered yet, and behind the chain: a frame the snapshot holds already.
    if (next === undefined && isBehind(frame)) return
    early.set(frame.sequence, { frame, at: performance.now() })
    if (gapTimer === undefined || early.size === 1) {
      clearTimeout(gapTimer)
      gapTimer = setTimeout(() => void serially(async () => void (await fill())), parts.gapWaitMs)
    }
  }

  /**
   * Where the sequencer's head is against the chain's: the same block; `ahead` on the same chain (it sealed a block
   * since); or `elsewhere` (it went back, or is another chain: a revert, a reset, a restart).
   */
  async function heads(): Promise<'same' | 'ahead' | 'elsewhere'> {
    const [ours, theirs] = [parts.head(), await parts.sequencerHead()]
    if (theirs.number === ours.number) return theirs.hash === ours.hash ? 'same' : 'elsewhere'
    if (theirs.number < ours.number) return 'elsewhere'
    return (await parts.sequencerHash(ours.number)) === ours.hash ? 'ahead' : 'elsewhere'
  }

  /**
   * Fetches what is missing before the frames that wait; true when the sequencer had frames to give. `routine`: a
   * poll of a quiet stream, which is catching up only once the sequencer has frames for it, and which decides itself
   * what a fetch that finds the chain's place lost means (`lost`, its reason): the replica does not start again here.
   */
  async function fill(routine: true): Promise<boolean | { lost: string }>
  async function fill(routine?: false): Promise<boolean>
  async function fill(routine = false): Promise<boolean | { lost: string }> {
    const lost = async (reason: string) => {
      if (routine) return { lost: reason }
      await resync(reason)
      return true
    }
    gapTimer = undefined
    if (stopped) return false
    filling = !routine
    try {
      const { number, index } = parts.expected()
      const frames = await parts.fetch(number, index)
      if (frames === undefined) {
        // A frame of a later block came: the block the chain is at is sealed, and a snapshot holds it.
        const sealed = [...early.values()].some(({ frame }) => frame.number > number || (frame.number === number && frame.sealed))
        // Only the first flashblock of a block begun on the chain's own head before the stream had a reader is waited
        // out. Mid-block, the sequencer lost the block (a restart, a revert); with its head elsewhere, or sealed on,
        // the chain is loaded again at once.
        if (sealed || index > 0 || (await heads()) !== 'same') return lost(`block ${number}'s flashblock ${index} is no longer kept by the sequencer`)
        awaitingSeal = true
        awaitingSince = Math.min(performance.now(), ...[...early.values()].map(({ at }) => at))
        early.clear()
        return true
      }
      if (frames.length === 0) {
        // Nothing newer, while frames after it came: the sequencer went back since they did (a revert, a reset).
        if (early.size > 0) return lost(`the sequencer has nothing from block ${number}'s flashblock ${index} on, and sent later frames`)
        // Nothing newer, which a sequencer that went back (a revert, a reset, a restart on another chain) also says
        // while the stream was away: the heads tell. One that sealed a block since has frames coming.
        if (next === undefined && (await heads()) === 'elsewhere') return lost("the sequencer's head is not this chain's")
        return false
      }
      // Only frames after those applied are news; the rest came by the stream already.
      const fresh = frames.filter((frame) => next === undefined || frame.sequence >= next)
      if (fresh.length === 0) return false
      filling = true
      if (early.size > 0) counts.gaps++
      for (const frame of fresh) {
        if (next !== undefined && frame.sequence < next) continue
        counts.refetched++
        // The fetched frames start where the chain is: the first one tells the numbering if nothing did.
        if (next === undefined && atExpected(frame)) next = frame.sequence
        if (!(await offer(frame))) return lost(`the sequencer's frames from block ${number}'s flashblock ${index} do not follow from the chain`)
        // A frame refused: the replica started again, and the rest of these are of the chain it left.
        if (next === undefined) return true
      }
      await drain()
      if (early.size > 0) gapTimer = setTimeout(() => void serially(async () => void (await fill())), parts.gapWaitMs)
      return true
    } finally {
      filling = false
    }
  }

  return {
    start: () => start(),
    receive(frame) {
      if (queued.length >= MAX_QUEUED) {
        if (overflowing) return
        // The frames waiting are dropped as their turns come, and the replica starts again after them.
        overflowing = true
        generation++
        void serially(async () => {
          await resync(`${MAX_QUEUED} frames waited to be run: the replica fell behind`)
          overflowing = false
        })
        return
      }
      queued.push(performance.now())
      const of = generation
      void serially(() => handle(frame, of))
    },
    connected() {
      // In turn: the frames received before are of the old connection's numbering (a sequencer that restarted
      // numbers from 0 again).
      void serially(async () => {
        next = undefined
        early.clear()
        await fill()
      })
    },
    async poll() {
      let found = false
      await serially(async () => {
        for (let round = 1; !stopped; round++) {
          // What changed since the last frame first: a revert made with no frame after it moves the chain back, where
          // the frames the sequencer has are found.
          const quiet = await parts.quiet(next)
          if ('refused' in quiet) return resync(quiet.refused)
          const owed = next !== undefined && quiet.sequence > next
          const filled = await fill(true)
          if (typeof filled === 'boolean') {
            found = filled
            return
          }
          // Nothing kept from where the chain is, or frames that do not follow from it: a revert or a reset the
          // sequencer made while this poll asked says so too. The frame that carries it is on its way by the stream
          // (waited for once: still owed at the next poll, the stream is stuck), or not sent yet, and asking again
          // takes it. Only what asking again cannot explain starts the replica again.
          if (owed && waitedAt !== next) {
            waitedAt = next
            return
          }
          if (round === 2) {
            await resync(filled.lost)
            found = true
            return
          }
        }
      })
      return found
    },
    settled: () => queue,
    counts,
    get behindSince() {
      let oldest: number | undefined = awaitingSeal ? awaitingSince : queued[0]
      for (const { at } of early.values()) if (oldest === undefined || at < oldest) oldest = at
      return oldest
    },
    get catchingUp() {
      return filling || awaitingSeal || overflowing || early.size > 0
    },
    stop() {
      stopped = true
      clearTimeout(gapTimer)
    },
  }
}
