import { hexToBytes } from '@ethereumjs/util'
import { z } from 'zod'

import { setStorage } from '../../chain/state/edits.ts'
import { address, data, storageSlot } from '../schemas.ts'
import { anvilMethod, hardhatMethod } from './control.ts'

import type { MethodContext } from '../method.ts'

/** The value is a word of at most 32 bytes, left-padded as the slot is. */
const params = z.tuple([address, storageSlot, data.refine((value) => value.length <= 66, 'hex string too long, want at most 32 bytes')])

function setStorageAtOf([account, slot, value]: z.output<typeof params>, { control }: MethodContext) {
  return control.edit(setStorage(account, hexToBytes(slot), hexToBytes(value)))
}

export const anvilSetStorageAt = anvilMethod('anvil_setStorageAt', params, setStorageAtOf)
export const hardhatSetStorageAt = hardhatMethod('hardhat_setStorageAt', params, setStorageAtOf)
