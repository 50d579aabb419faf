import { z } from 'zod'

import { bytesToHex } from '../../hex.ts'
import { defineMethod } from '../method.ts'
import { hash } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** `(hash)`: a sealed, pre-confirmed or pooled transaction's canonical encoding (EIP-2718); null for an unknown hash. */
export const getRawTransaction = defineMethod({
  name: 'debug_getRawTransaction',
  access: 'public',
  params: z.tuple([hash]),
  handler: ([txHash], { blocks }): Hex | null => {
    const raw = blocks.rawTransaction(txHash)
    return raw === undefined ? null : bytesToHex(raw)
  },
})
