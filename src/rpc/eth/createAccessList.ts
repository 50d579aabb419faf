import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'
import { block, callRequest, stateOverrides } from '../schemas.ts'

import type { AccessListEntry } from '../../chain/types.ts'
import type { Hex } from '../../hex.ts'

export type AccessListResultJSON = { accessList: AccessListEntry[]; error?: string; gasUsed: Hex }

/**
 * `(tx, block = latest, stateOverrides?)`, as geth: the EIP-2930 access list the transaction needs, the gas it uses
 * with that list, and `error` when it reverts or halts (the list is still what it touched).
 */
export const createAccessList = defineMethod({
  name: 'eth_createAccessList',
  access: 'public',
  upstream: { block: 1, scope: 'state' },
  params: z.tuple([callRequest, block.optional(), stateOverrides.optional()]),
  handler: async ([request, given, state], { calls, node }): Promise<AccessListResultJSON> => {
    const result = await calls.createAccessList(request, given ?? node.defaultBlock, { state })
    return {
      accessList: result.accessList,
      ...(result.error === undefined ? {} : { error: result.error }),
      gasUsed: toQuantity(result.gasUsed),
    }
  },
})
