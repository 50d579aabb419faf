import { z } from 'zod'

import { MAX_TIMESTAMP } from '../../chain/production/clock.ts'
import { defineMethod } from '../method.ts'
import { quantity } from '../schemas.ts'
import { anvilMethod } from './control.ts'

import type { MethodContext } from '../method.ts'

const params = z.tuple([
  quantity.refine((seconds) => seconds > 0n && seconds <= MAX_TIMESTAMP, `the interval must be from 1 to ${MAX_TIMESTAMP} seconds`),
])

/** Each block from the next on is stamped `seconds` after the one before, whatever the clock says. */
function setInterval(seconds: bigint, { producer }: MethodContext) {
  return producer.planBlocks((plan) => {
    plan.timestampInterval = seconds
  })
}

export const anvilSetBlockTimestampInterval = anvilMethod('anvil_setBlockTimestampInterval', params, ([seconds], context) =>
  setInterval(seconds, context),
)

const millisecondParams = z.tuple([
  quantity.refine((ms) => ms >= 1000n && ms % 1000n === 0n && ms / 1000n <= MAX_TIMESTAMP, 'the interval must be whole seconds, in ms'),
])

/** Hardhat has no such method; viem's test client calls it in its Hardhat mode, in milliseconds. */
export const hardhatSetBlockTimestampInterval = anvilMethod('hardhat_setBlockTimestampInterval', millisecondParams, ([ms], context) =>
  setInterval(ms / 1000n, context),
)

/** Back to the clock; true when there was an interval to remove, as anvil answers. */
async function removeInterval(_: unknown, { producer }: MethodContext): Promise<boolean> {
  let removed = false
  await producer.planBlocks((plan) => {
    removed = plan.timestampInterval !== undefined
    plan.timestampInterval = undefined
  })
  return removed
}

export const anvilRemoveBlockTimestampInterval = defineMethod({
  name: 'anvil_removeBlockTimestampInterval',
  access: 'owner',
  params: z.tuple([]),
  handler: removeInterval,
})
export const hardhatRemoveBlockTimestampInterval = defineMethod({
  name: 'hardhat_removeBlockTimestampInterval',
  access: 'owner',
  params: z.tuple([]),
  handler: removeInterval,
})
