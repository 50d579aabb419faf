import * as Address from 'ox/Address'
import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { bySender } from './group.ts'

import type { Transaction } from '../../chain/types.ts'
import type { BySender } from './group.ts'

/** Every pool transaction in one line, as geth writes it: `<to>: <value> wei + <gas> gas × <fee cap> wei`. */
export const inspect = defineMethod({
  name: 'txpool_inspect',
  access: 'public',
  params: z.tuple([]),
  handler: (_params, { pool }): { pending: BySender<string>; queued: BySender<string> } => {
    const { pending, queued } = pool.content()
    return { pending: bySender(pending, summary), queued: bySender(queued, summary) }
  },
})

function summary(tx: Transaction): string {
  const to = tx.to === null ? 'contract creation' : Address.checksum(tx.to)
  return `${to}: ${tx.value} wei + ${tx.gas} gas × ${tx.maxFeePerGas ?? tx.gasPrice} wei`
}
