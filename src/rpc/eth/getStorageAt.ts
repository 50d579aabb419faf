import { bytesToHex, setLengthLeft } from '@ethereumjs/util'
import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { address, block, storageSlot } from '../schemas.ts'

export const getStorageAt = defineMethod({
  params: z.tuple([address, storageSlot, block.optional()]),
  handler: ([account, slot, at = 'latest'], { chain }) => bytesToHex(setLengthLeft(chain.stateAt(at).storage(account, slot), 32)),
})
