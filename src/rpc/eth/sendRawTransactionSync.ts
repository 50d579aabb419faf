import { z } from 'zod'

import { hexToBytes } from '../../hex.ts'
import { TransactionTimeoutError } from '../../errors.ts'
import { defineMethod } from '../method.ts'
import { formatReceipt } from '../format.ts'
import { data } from '../schemas.ts'

import type { ReceiptJSON } from '../format.ts'

/** How long to wait by default and at most, in ms (EIP-7966 leaves both to the node). */
const DEFAULT_TIMEOUT = 2_000
const MAX_TIMEOUT = 60_000

/** EIP-7966: send, wait until the transaction is pre-confirmed, and answer with its receipt. */
export const sendRawTransactionSync = defineMethod({
  name: 'eth_sendRawTransactionSync',
  params: z.tuple([data, z.number().int().positive().max(MAX_TIMEOUT).optional()]),
  handler: async ([raw, timeout = DEFAULT_TIMEOUT], { chain }): Promise<ReceiptJSON> => {
    const hash = await chain.sendRawTransaction(hexToBytes(raw))
    const preconfirmed = await chain.waitForPreconfirmation(hash, timeout)
    const location = chain.transaction(hash)
    if (!preconfirmed || location === undefined || location.kind === 'pool') throw new TransactionTimeoutError(hash, timeout)
    return formatReceipt(location)
  },
})
