import { bytesToHex } from '@ethereumjs/util'
import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { block, callRequest } from '../schemas.ts'

export const call = defineMethod({
  params: z.tuple([callRequest, block.optional()]),
  handler: async ([request, at = 'latest'], { chain }) => bytesToHex(await chain.call(request, at)),
})
