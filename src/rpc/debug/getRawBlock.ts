import { z } from 'zod'

import { ServerError } from '../errors.ts'
import { bytesToHex } from '../../hex.ts'
import { defineMethod } from '../method.ts'
import { block } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/**
 * `(block)`: a sealed block's RLP encoding. As geth: null for a number past the head, -32000 for an unknown hash.
 * The pending block has no encoding before it seals (no roots, no hash), so it answers null too.
 */
export const getRawBlock = defineMethod({
  name: 'debug_getRawBlock',
  access: 'public',
  params: z.tuple([block]),
  handler: ([at], { blocks }): Hex | null => {
    const raw = blocks.rawBlock(at)
    if (raw !== undefined) return bytesToHex(raw)
    if (typeof at === 'object') throw new ServerError(`block ${at.blockHash} not found`)
    return null
  },
})
