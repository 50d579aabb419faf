import { z } from 'zod'

import { MAX_TIMESTAMP } from '../../chain/production/clock.ts'
import { InvalidParamsError } from '../../errors.ts'
import { defineMethod } from '../method.ts'
import { quantity } from '../schemas.ts'

import type { MethodContext } from '../method.ts'

/** At most this many blocks per call, so that one request cannot hold the producer for good. */
export const MAX_BLOCKS_PER_CALL = 1_000_000n

const params = z.tuple([
  quantity.refine((count) => count <= MAX_BLOCKS_PER_CALL, `at most ${MAX_BLOCKS_PER_CALL} blocks per call`).optional(),
  quantity.optional(),
])

/**
 * Seals `count` blocks (default 1); the first takes what is pending. With an `interval` above 0, each block after
 * the first is that many seconds after the one before; with none or 0, blocks follow the clock, as evm_mine does.
 */
async function mineBlocks([count = 1n, interval = 0n]: z.output<typeof params>, { chain, wallet, request }: MethodContext): Promise<void> {
  wallet.requireOwner(request)
  const last = chain.head().header.timestamp + interval * count
  if (interval > 0n && last > MAX_TIMESTAMP) {
    throw new InvalidParamsError(`the last block would be stamped ${last}, past ${MAX_TIMESTAMP}, the latest a block may take`)
  }
  let timestamp: bigint | undefined
  for (let mined = 0n; mined < count; mined++) {
    const block = await chain.mine({ timestamp })
    if (interval > 0n) timestamp = block.header.timestamp + interval
  }
}

/** Answers null, as anvil does. */
export const anvilMine = defineMethod({
  name: 'anvil_mine',
  params,
  handler: (args, context): Promise<null> => mineBlocks(args, context).then((): null => null),
})

/** Answers true, as Hardhat does. */
export const hardhatMine = defineMethod({
  name: 'hardhat_mine',
  params,
  handler: (args, context): Promise<true> => mineBlocks(args, context).then((): true => true),
})
