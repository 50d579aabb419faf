import { z } from 'zod'

import { bytesToHex } from '../../hex.ts'
import { EncodedJson, LARGE_ANSWER_BYTES } from '../../runtime/encodedJson.ts'
import { defineMethod } from '../method.ts'
import { block, blockOverrides, callRequest, stateOverrides } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** `(tx, block = latest, stateOverrides?, blockOverrides?)`, as geth: the call's return data. */
export const call = defineMethod({
  name: 'eth_call',
  access: 'public',
  upstream: { block: 1, scope: 'state' },
  params: z.tuple([callRequest, block.optional(), stateOverrides.optional(), blockOverrides.optional()]),
  handler: async ([request, given, state, env], { calls, node }): Promise<Hex | EncodedJson> => {
    const data = await calls.call(request, given ?? node.defaultBlock, { state, block: env })
    return data.byteLength >= LARGE_ANSWER_BYTES ? EncodedJson.hex(data) : bytesToHex(data)
  },
})
