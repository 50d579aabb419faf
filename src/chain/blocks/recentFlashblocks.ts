import type { ChainEvents } from '../events.ts'
import type { Flashblock } from '../types.ts'

/**
 * The flashblocks of the newest blocks, as the stream sent them, so that a reader that lost its connection or missed
 * frames fills the gap instead of dropping `pending` until the next block (flashchain_getFlashblocks). They are kept
 * while the stream has readers and for `graceMs` after the last one leaves, long enough to reconnect: keeping them
 * costs the writer a preview of each flashblock's roots, which it skips when no one listens.
 */
export type RecentFlashblocks = {
  /** A reader of the stream arrived; the returned function says it left. */
  hold(): () => void
  /**
   * Every kept flashblock from block `number`'s flashblock `index` on, oldest first; undefined when that one is not
   * kept (too old, from before the stream had readers, or from a block since reverted).
   */
  since(number: bigint, index: number): Flashblock[] | undefined
  /** The oldest flashblock kept, if any. */
  oldest(): { number: bigint; index: number } | undefined
  /** The chain went back to block `number` (a revert, a reset): the flashblocks of later blocks are no longer its. */
  rewound(number: bigint): void
}

export type RecentFlashblocksLimits = {
  /** Blocks kept, the one being built included (64 by default). */
  blocks?: number
  /** Transactions kept across them (20,000 by default): under load, older blocks go first. */
  transactions?: number
  /** How long they are still kept after the stream's last reader leaves, ms (60 s by default). */
  graceMs?: number
}

export function createRecentFlashblocks(flashblocks: ChainEvents<Flashblock>, limits: RecentFlashblocksLimits = {}): RecentFlashblocks {
  const { blocks: maxBlocks = 64, transactions: maxTransactions = 20_000, graceMs = 60_000 } = limits
  /** By block number, oldest first; each block's flashblocks in index order, without a gap. */
  const kept = new Map<bigint, Flashblock[]>()
  let transactions = 0
  let readers = 0
  let stop: (() => void) | undefined
  let release: NodeJS.Timeout | undefined

  function forget(number: bigint) {
    for (const flashblock of kept.get(number) ?? []) transactions -= flashblock.transactions.length
    kept.delete(number)
  }

  function record(flashblock: Flashblock) {
    const { number, index } = flashblock
    // A block number seen again (evm_revert, anvil_reset, a fork's reset) replaces it and every block after it.
    for (const at of [...kept.keys()]) if (at > number || (at === number && index === 0)) forget(at)
    const frames = kept.get(number)
    if (frames === undefined || frames.at(-1)!.index !== index - 1) {
      // A first frame, or one after a gap (a turn the clock skipped publishes nothing): the block starts over here.
      forget(number)
      kept.set(number, [flashblock])
    } else frames.push(flashblock)
    transactions += flashblock.transactions.length
    for (const at of kept.keys()) {
      if (kept.size <= maxBlocks && transactions <= maxTransactions) break
      if (at === number) break
      forget(at)
    }
  }

  function clear() {
    stop?.()
    stop = undefined
    kept.clear()
    transactions = 0
  }

  return {
    hold() {
      readers++
      clearTimeout(release)
      release = undefined
      stop ??= flashblocks.subscribe(record)
      let held = true
      return () => {
        if (!held) return
        held = false
        if (--readers > 0) return
        release = setTimeout(clear, graceMs)
        release.unref()
      }
    },
    since(number, index) {
      const frames = kept.get(number)
      const start = frames?.findIndex((flashblock) => flashblock.index === index) ?? -1
      if (frames === undefined || start === -1) {
        // Asking for what comes right after the newest kept flashblock (the next of its block, or the first of the
        // next block) is asking for nothing yet; for anything further, it is not kept.
        const newest = [...kept.values()].at(-1)?.at(-1)
        if (newest !== undefined && ((number === newest.number + 1n && index === 0) || (number === newest.number && index === newest.index + 1)))
          return []
        return undefined
      }
      const after = [...kept.entries()].filter(([at]) => at > number).flatMap(([, rest]) => rest)
      return [...frames.slice(start), ...after]
    },
    rewound(number) {
      for (const at of [...kept.keys()]) if (at > number) forget(at)
    },
    oldest() {
      const first = kept.values().next().value?.[0]
      return first === undefined ? undefined : { number: first.number, index: first.index }
    },
  }
}
