import { bytesToHex } from '@ethereumjs/util'

import { logsOf } from '../blocks/logs.ts'
import { pendingBlockOf, sealedBlockOf } from '../blocks/views.ts'

import type { RecentFlashblocks } from '../blocks/recentFlashblocks.ts'
import type { PendingSnapshot, SealedBlock } from '../blocks/types.ts'
import type { ChainEvents, ChainListener } from '../events.ts'
import type { Hex } from '../../hex.ts'
import type { ChainEdit, Flashblock } from '../types.ts'

export type EventsParts = {
  events: ChainEvents
  flashblocks: ChainEvents<Flashblock>
  /** The flashblocks kept for readers that missed some (the composition tells them of rewinds). */
  recent: RecentFlashblocks
  /** The pending block: whether the next block has begun (flashblocksSince). */
  pending: () => PendingSnapshot
  /** The test-control changes the stream's next frame will carry (StreamEdits.peek), and that frame's sequence. */
  unsentEdits: () => UnsentEdits
}

/** What happens on the chain, announced to whoever listens (docs/architecture.md#events-and-subscriptions). */
export type EventsService = {
  /**
   * Listens to what happens: transactions entering the pool, flashblocks, sealed blocks (see ChainEvent). Events
   * arrive in order, on a later turn than the change they announce. Returns what stops listening.
   */
  subscribe(listener: ChainListener): () => void
  /**
   * Listens to flashblocks as the flashblocks stream carries them: what each adds, and the block's roots and hash as
   * if sealed after it. Previewing them costs the writer work, done only while someone listens here. The newest
   * blocks' flashblocks are kept meanwhile, and for a minute after the last listener leaves (recentFlashblocks.ts).
   */
  subscribeFlashblocks(listener: (flashblock: Flashblock) => void): () => void
  /**
   * The kept flashblocks from block `number`'s flashblock `index` on, oldest first (none yet: empty); undefined when
   * that one is not kept, with the oldest that is.
   */
  flashblocksSince(number: bigint, index: number): { flashblocks: Flashblock[] } | { oldest: { number: bigint; index: number } | undefined }
  /**
   * The test-control changes made since the stream's last frame, which its next one will carry, oldest first, and
   * that frame's sequence: what a replica asks for while no frame comes (manual and auto mining), so that an edit
   * does not wait for a transaction.
   */
  unsentEdits(): UnsentEdits
}

/** Changes the stream's next frame will carry, and the `sequence` that frame will have (Flashblock.sequence). */
export type UnsentEdits = { sequence: number; edits: readonly ChainEdit[] }

export function createEventsService({ events, flashblocks, recent, pending, unsentEdits }: EventsParts): EventsService {
  return {
    subscribe: (listener) => events.subscribe(listener),
    subscribeFlashblocks(listener) {
      const release = recent.hold()
      const stop = flashblocks.subscribe(listener)
      return () => {
        stop()
        release()
      }
    },
    flashblocksSince(number, index) {
      const kept = recent.since(number, index)
      if (kept !== undefined) return { flashblocks: kept }
      // The first flashblock of a block not begun yet is what comes next, kept or not.
      const next = pending()
      if (index === 0 && next.flashblockIndex === -1 && next.env.number === number) return { flashblocks: [] }
      return { oldest: recent.oldest() }
    },
    unsentEdits,
  }
}

/** Announces a sealed block with its logs: the last stage of the seal pipeline. */
export function announceSealed(events: ChainEvents, sealed: SealedBlock): void {
  events.announce(() => ({ type: 'sealed', block: sealedBlockOf(sealed), logs: logsOf(sealedLogsSource(sealed)) }))
}

/** Announces a published flashblock: the pending block as of it, and the logs of its transactions from `first` on. */
export function announcePublished(events: ChainEvents, snapshot: PendingSnapshot, first: number): void {
  events.announce(() => ({ type: 'flashblock', block: pendingBlockOf(snapshot), first, logs: logsOf(pendingLogsSource(snapshot), first) }))
}

/** A sealed block's logs with their positions, for its announcement. */
function sealedLogsSource(sealed: SealedBlock) {
  const { block } = sealed
  return {
    number: sealed.number,
    hash: sealed.hash,
    timestamp: block.header.timestamp,
    receipts: sealed.receipts,
    transactionHash: (index: number) => bytesToHex(block.transactions[index]!.hash()) as Hex,
  }
}

/** The pending block's logs, with the hash of their block as of its newest flashblock. */
function pendingLogsSource(pending: PendingSnapshot) {
  return {
    number: pending.env.number,
    hash: pending.hash,
    timestamp: pending.env.timestamp,
    receipts: pending.receipts,
    transactionHash: (index: number) => bytesToHex(pending.transactions[index]!.hash()) as Hex,
  }
}
