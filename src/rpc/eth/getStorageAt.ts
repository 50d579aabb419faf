import { z } from 'zod'

import { bytesToHex } from '../../hex.ts'
import { defineMethod } from '../method.ts'
import { address, block, storageSlot } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** `(address, slot, block = latest)`: the slot's value as a 32-byte word. */
export const getStorageAt = defineMethod({
  name: 'eth_getStorageAt',
  params: z.tuple([address, storageSlot, block.optional()]),
  handler: ([account, slot, at = 'latest'], { chain }): Hex => {
    // The state keeps a slot's value without leading zeros; the answer is the whole word.
    const value = chain.stateAt(at).storage(account, slot)
    const word = new Uint8Array(32)
    word.set(value, 32 - value.length)
    return bytesToHex(word)
  },
})
