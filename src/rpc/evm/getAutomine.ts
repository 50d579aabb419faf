import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { MethodContext } from '../method.ts'

const params = z.tuple([])

/** Whether each transaction is sealed as it arrives (`--mining auto` or evm_setAutomine). For the owner, as every test-control method. */
function isAutomine(_params: unknown, { producer }: MethodContext): boolean {
  return producer.mining === 'auto'
}

export const hardhatGetAutomine = defineMethod({ name: 'hardhat_getAutomine', access: 'owner', params, handler: isAutomine })
export const anvilGetAutomine = defineMethod({ name: 'anvil_getAutomine', access: 'owner', params, handler: isAutomine })
