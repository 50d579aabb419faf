import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { quantity } from '../schemas.ts'

import type { MethodContext } from '../method.ts'

const params = z.tuple([quantity])

/**
 * The timestamp the next block to start takes; the blocks after it go on from there. It must be after the latest
 * block's. With interval mining, a block is always being built, so it applies to the block after that one.
 */
function setNext([timestamp]: z.output<typeof params>, { producer }: MethodContext): null {
  producer.setNextBlockTimestamp(timestamp)
  return null
}

export const setNextBlockTimestamp = defineMethod({ name: 'evm_setNextBlockTimestamp', access: 'owner', params, handler: setNext })
export const anvilSetNextBlockTimestamp = defineMethod({ name: 'anvil_setNextBlockTimestamp', access: 'owner', params, handler: setNext })
