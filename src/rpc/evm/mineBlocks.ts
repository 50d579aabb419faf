import { z } from 'zod'

import { MAX_TIMESTAMP } from '../../chain/production/clock.ts'
import { InvalidParamsError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { quantity } from '../schemas.ts'

import type { MethodContext } from '../method.ts'

const params = z.tuple([quantity.optional(), quantity.optional()])

type Stamping = 'anvil' | 'hardhat'

/**
 * Seals `count` blocks (default 1); the first takes what is pending. With an `interval` above 0, anvil moves its
 * clock forward by `interval` before each block, the first included (anvil_mine in foundry's anvil/src/eth/api.rs),
 * so each block is `interval` seconds after the one before and the first is `interval` after the clock; this stamps
 * them so, as if the call took no time. Hardhat stamps the first block by the clock and each after it `interval`
 * seconds after the one before. With none or 0, blocks follow the clock, as evm_mine does. A block already being
 * built (interval mining) keeps the timestamp it started with.
 */
async function mineBlocks(stamping: Stamping, [count = 1n, interval = 0n]: z.output<typeof params>, context: MethodContext): Promise<void> {
  const { blocks, producer, node } = context
  // Every block is sealed for real (flashchain reserves no blocks as Hardhat does: EIP-2935 and EIP-4788 write each
  // block's parent into the state, so an empty block's hash depends on the state roots of all before it), so a call
  // takes time and memory in proportion, and is bounded (--max-mine-blocks; docs/chain.md#mining-many-blocks).
  if (count > node.maxMineBlocks) {
    throw new InvalidParamsError(`invalid argument 0: at most ${node.maxMineBlocks} blocks per call; call again for more`)
  }
  // Zero blocks: nothing to seal, as anvil's loop over none.
  if (count === 0n) return
  const previous = stamping === 'anvil' ? producer.now() : blocks.head().header.timestamp
  const last = previous + interval * count
  if (interval > 0n && last > MAX_TIMESTAMP) {
    throw new InvalidParamsError(`the last block would be stamped ${last}, past ${MAX_TIMESTAMP}, the latest a block may take`)
  }
  const timestamp = interval > 0n && stamping === 'anvil' ? previous + interval : undefined
  await producer.mineBlocks(count, { timestamp, interval })
}

/** Answers null, as anvil does. */
export const anvilMine = defineMethod({
  name: 'anvil_mine',
  access: 'owner',
  params,
  handler: (args, context): Promise<null> => mineBlocks('anvil', args, context).then((): null => null),
})

/** Answers true, as Hardhat does. */
export const hardhatMine = defineMethod({
  name: 'hardhat_mine',
  access: 'owner',
  params,
  handler: (args, context): Promise<true> => mineBlocks('hardhat', args, context).then((): true => true),
})
