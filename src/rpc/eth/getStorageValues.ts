import { z } from 'zod'

import { InvalidParamsError, LimitExceededError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { formatStorageWord } from '../format.ts'
import { address, block, hash } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** geth's cap on the slots one request may read. */
const MAX_SLOTS = 1024

/**
 * `({ address: slots[] }, block = latest)`: many slots of many accounts from one state, each as a 32-byte word,
 * accounts in address order as geth writes them. More than 1024 slots is -32005; none at all is -32602.
 */
export const getStorageValues = defineMethod({
  name: 'eth_getStorageValues',
  access: 'public',
  params: z.tuple([z.record(address, z.array(hash)), block.optional()]),
  handler: ([requests, given], { state, node }): Record<Hex, Hex[]> => {
    const entries = Object.entries(requests) as [Hex, Hex[]][]
    const total = entries.reduce((sum, [, slots]) => sum + slots.length, 0)
    if (total > MAX_SLOTS) throw new LimitExceededError(`too many slots (max ${MAX_SLOTS})`)
    if (total === 0) throw new InvalidParamsError('empty request')
    const reader = state.stateAt(given ?? node.defaultBlock)
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return Object.fromEntries(entries.map(([account, slots]) => [account, slots.map((slot) => formatStorageWord(reader.storage(account, slot)))]))
  },
})
