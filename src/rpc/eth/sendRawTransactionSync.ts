import { z } from 'zod'

import { hexToBytes } from '../../hex.ts'
import { TransactionTimeoutError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { formatReceipt } from '../format.ts'
import { data, quantity } from '../schemas.ts'

import type { ReceiptJSON } from '../format.ts'

/** How long to wait by default and at most, in ms (EIP-7966 leaves both to the node). */
const DEFAULT_TIMEOUT = 2_000
const MAX_TIMEOUT = 60_000

/** ms as a JSON number (EIP-7966, viem) or a hex quantity (earlier viem versions send one). */
const timeoutMs = quantity
  .refine((value) => value > 0n && value <= BigInt(MAX_TIMEOUT), `timeout must be from 1 to ${MAX_TIMEOUT} ms`)
  .transform(Number)

/**
 * EIP-7966: send, wait until the transaction is pre-confirmed (in every mining mode: automine has sealed it by the
 * time the send answers), and answer with its receipt.
 */
export const sendRawTransactionSync = defineMethod({
  name: 'eth_sendRawTransactionSync',
  access: 'public',
  params: z.tuple([data, timeoutMs.optional()]),
  handler: async ([raw, timeout = DEFAULT_TIMEOUT], { blocks, pool }): Promise<ReceiptJSON> => {
    const hash = await pool.sendRawTransaction(hexToBytes(raw))
    const preconfirmed = await pool.waitForPreconfirmation(hash, timeout)
    const location = blocks.transaction(hash)
    if (!preconfirmed || location === undefined || location.kind === 'pool') throw new TransactionTimeoutError(hash, timeout)
    return formatReceipt(location)
  },
})
