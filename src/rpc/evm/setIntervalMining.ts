import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { MethodContext } from '../method.ts'

const interval = z.number().int().nonnegative()

async function setInterval(blockTime: number, { producer }: MethodContext): Promise<void> {
  await producer.setIntervalMining(blockTime)
}

/**
 * Hardhat takes this name in milliseconds and anvil in seconds, and viem's test client sends either, by its mode. A
 * block time shorter than a flashblock cannot be meant in milliseconds, so a value under the flashblock interval is
 * read as seconds, and any other as milliseconds. 0 stops interval mining. Answers true.
 */
export const setIntervalMining = defineMethod({
  name: 'evm_setIntervalMining',
  access: 'owner',
  params: z.tuple([interval]),
  handler: ([value], context): Promise<true> =>
    setInterval(value < context.spec.flashblockInterval ? value * 1000 : value, context).then((): true => true),
})

/** anvil's method, in seconds. 0 stops interval mining. Answers null. */
export const anvilSetIntervalMining = defineMethod({
  name: 'anvil_setIntervalMining',
  access: 'owner',
  params: z.tuple([interval]),
  handler: ([seconds], context): Promise<null> => setInterval(seconds * 1000, context).then((): null => null),
})
