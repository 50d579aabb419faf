import { bytesToHex, setLengthLeft } from '@ethereumjs/util'
import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { address, block, storageSlot } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** `(address, slot, block = latest)`: the slot's value as a 32-byte word. */
export const getStorageAt = defineMethod({
  name: 'eth_getStorageAt',
  params: z.tuple([address, storageSlot, block.optional()]),
  handler: ([account, slot, at = 'latest'], { chain }): Hex => bytesToHex(setLengthLeft(chain.stateAt(at).storage(account, slot), 32)) as Hex,
})
