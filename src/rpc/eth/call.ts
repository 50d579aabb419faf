import { z } from 'zod'

import { bytesToHex } from '../../hex.ts'
import { EncodedJson } from '../../runtime/encodedJson.ts'
import { defineMethod } from '../method.ts'
import { block, blockOverrides, callRequest, stateOverrides } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** Return data from this size on is written into the answer as bytes (EncodedJson.hex). */
const ENCODE_FROM_BYTES = 64 * 1024

/** `(tx, block = latest, stateOverrides?, blockOverrides?)`, as geth: the call's return data. */
export const call = defineMethod({
  name: 'eth_call',
  access: 'public',
  params: z.tuple([callRequest, block.optional(), stateOverrides.optional(), blockOverrides.optional()]),
  handler: async ([request, given, state, env], { chain, node }): Promise<Hex | EncodedJson> => {
    const data = await chain.call(request, given ?? node.defaultBlock, { state, block: env })
    return data.byteLength >= ENCODE_FROM_BYTES ? EncodedJson.hex(data) : bytesToHex(data)
  },
})
