import { yieldToEventLoop } from '../../runtime/eventLoop.ts'

import type { SealedBlock } from '../blocks/types.ts'

/**
 * The timestamps of blocks sealed one after another: the first at `timestamp` (by the clock when undefined), and
 * each after it `interval` seconds after the one before (by the clock when undefined or 0).
 */
export type BlockStamps = { timestamp?: bigint | undefined; interval?: bigint | undefined }

/** What sealing many blocks asks of the producer. */
export type SealingMany = {
  serially<T>(work: () => Promise<T>): Promise<T>
  /** Seals the next block, with what is pending, at `timestamp`. */
  sealOne(timestamp: bigint | undefined): Promise<SealedBlock>
  /** A slice ended: the pending block is computed again for the readers let through. */
  sliced(): void
}

/** How long sealBlocks holds the writer and the event loop before it lets other requests through. */
const SLICE_MS = 20

/**
 * Seals `count` blocks, the first with what is pending, on the writer's queue in slices of about SLICE_MS: between
 * two slices other requests are answered and other writes take their turn. Resolves with the last block.
 */
export async function sealBlocks(count: bigint, { timestamp, interval = 0n }: BlockStamps, producer: SealingMany): Promise<SealedBlock> {
  let sealed: SealedBlock | undefined
  let mined = 0n
  const next = () => (mined === 0n ? timestamp : interval > 0n ? sealed!.block.header.timestamp + interval : undefined)
  while (mined < count) {
    sealed = await producer.serially(async () => {
      const started = performance.now()
      let last: SealedBlock | undefined
      do {
        last = await producer.sealOne(next())
        sealed = last
        mined++
      } while (mined < count && performance.now() - started < SLICE_MS)
      producer.sliced()
      return last
    })
    await yieldToEventLoop()
  }
  return sealed!
}
