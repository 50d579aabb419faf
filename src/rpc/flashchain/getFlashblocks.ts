import { z } from 'zod'

import { FlashblockNotKeptError } from '../errors.ts'
import { formatFlashblock } from '../flashblocks.ts'
import { defineMethod } from '../method.ts'
import { uint64 } from '../schemas.ts'

import type { FlashblockJSON } from '../flashblocks.ts'

/**
 * The flashblocks of the stream at /flashblocks from block `number`'s flashblock `index` on, as the stream sent them
 * (Base's wire format, the JSON of `?encoding=json`), oldest first: a reader that lost its connection or missed frames
 * asks from the one after the last it has, and goes on without a gap. Empty when nothing newer has been published.
 * The newest 64 blocks' flashblocks are kept while the stream has readers and for a minute after the last one leaves;
 * one not kept is -32001, naming the oldest that is.
 */
export const getFlashblocks = defineMethod({
  name: 'flashchain_getFlashblocks',
  access: 'public',
  params: z.tuple([uint64, z.number().int().nonnegative()]),
  handler: ([number, index], { events }): FlashblockJSON[] => {
    const kept = events.flashblocksSince(number, index)
    if ('flashblocks' in kept) return kept.flashblocks.map(formatFlashblock)
    const oldest = kept.oldest === undefined ? 'none is kept' : `the oldest kept is block ${kept.oldest.number}'s flashblock ${kept.oldest.index}`
    throw new FlashblockNotKeptError(`block ${number}'s flashblock ${index} is not kept: ${oldest}`)
  },
})
