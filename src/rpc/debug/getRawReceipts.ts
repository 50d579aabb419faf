import { z } from 'zod'

import { bytesToHex } from '../../hex.ts'
import { defineMethod } from '../method.ts'
import { block } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/**
 * `(block)`: the consensus encoding of each receipt of a block (EIP-2718 typed receipts carry their type byte),
 * `pending` included. As geth: null for a number past the head, and no receipts for a hash it does not know.
 */
export const getRawReceipts = defineMethod({
  name: 'debug_getRawReceipts',
  access: 'public',
  params: z.tuple([block]),
  handler: ([at], { blocks }): Hex[] | null => {
    const receipts = blocks.rawReceipts(at)
    if (receipts !== undefined) return receipts.map(bytesToHex)
    return typeof at === 'object' ? [] : null
  },
})
