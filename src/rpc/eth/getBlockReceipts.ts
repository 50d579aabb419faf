import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { formatBlockReceipts } from '../format.ts'
import { block } from '../schemas.ts'

import type { ReceiptJSON } from '../format.ts'

/** `(block)`: every receipt of a block, `pending` included (its pre-confirmed transactions); null for an unknown block, as geth. */
export const getBlockReceipts = defineMethod({
  name: 'eth_getBlockReceipts',
  access: 'public',
  upstream: { block: 0, scope: 'blocks' },
  params: z.tuple([block]),
  handler: ([at], { blocks }): ReceiptJSON[] | null => {
    const found = blocks.block(at)
    return found === undefined ? null : formatBlockReceipts(found)
  },
})
