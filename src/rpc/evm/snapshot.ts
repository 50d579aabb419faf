import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { quantity } from '../schemas.ts'

import type { Hex } from '../../hex.ts'
import type { MethodContext } from '../method.ts'

async function takeSnapshot(_: unknown, { control }: MethodContext): Promise<Hex> {
  return `0x${(await control.snapshot()).toString(16)}`
}

const revertParams = z.tuple([quantity])

/** True after going back to the snapshot, which is then gone with every later one; false for an unknown id. */
function revertTo([id]: z.output<typeof revertParams>, { control }: MethodContext): Promise<boolean> {
  return control.revert(id)
}

const none = z.tuple([])

export const snapshot = defineMethod({ name: 'evm_snapshot', access: 'owner', params: none, handler: takeSnapshot })
export const anvilSnapshot = defineMethod({ name: 'anvil_snapshot', access: 'owner', params: none, handler: takeSnapshot })
export const revert = defineMethod({ name: 'evm_revert', access: 'owner', params: revertParams, handler: revertTo })
export const anvilRevert = defineMethod({ name: 'anvil_revert', access: 'owner', params: revertParams, handler: revertTo })
