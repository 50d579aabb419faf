import { bytesToHex } from '@ethereumjs/util'
import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { block, blockOverrides, callRequest, stateOverrides } from '../schemas.ts'

export const call = defineMethod({
  params: z.tuple([callRequest, block.optional(), stateOverrides.optional(), blockOverrides.optional()]),
  handler: async ([request, at = 'latest', state, env], { chain }) => bytesToHex(await chain.call(request, at, { state, block: env })),
})
