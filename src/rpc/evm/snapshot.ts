import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { quantity } from '../schemas.ts'

import type { Hex } from '../../hex.ts'
import type { MethodContext } from '../method.ts'

async function takeSnapshot(_: unknown, { wallet, request }: MethodContext): Promise<Hex> {
  wallet.requireOwner(request)
  return `0x${(await wallet.snapshot()).toString(16)}`
}

const revertParams = z.tuple([quantity])

/** True after going back to the snapshot, which is then gone with every later one; false for an unknown id. */
function revertTo([id]: z.output<typeof revertParams>, { wallet, request }: MethodContext): Promise<boolean> {
  wallet.requireOwner(request)
  return wallet.revert(id)
}

const none = z.tuple([])

export const snapshot = defineMethod({ name: 'evm_snapshot', params: none, handler: takeSnapshot })
export const anvilSnapshot = defineMethod({ name: 'anvil_snapshot', params: none, handler: takeSnapshot })
export const revert = defineMethod({ name: 'evm_revert', params: revertParams, handler: revertTo })
export const anvilRevert = defineMethod({ name: 'anvil_revert', params: revertParams, handler: revertTo })
