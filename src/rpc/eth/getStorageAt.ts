import { z } from 'zod'

import { formatStorageWord } from '../format.ts'
import { defineMethod } from '../method.ts'
import { address, block, storageSlot } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** `(address, slot, block = latest)`: the slot's value as a 32-byte word. */
export const getStorageAt = defineMethod({
  name: 'eth_getStorageAt',
  access: 'public',
  upstream: { block: 2, scope: 'state' },
  params: z.tuple([address, storageSlot, block.optional()]),
  handler: ([account, slot, given], { state, node }): Hex => formatStorageWord(state.stateAt(given ?? node.defaultBlock).storage(account, slot)),
})
