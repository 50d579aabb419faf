import { z } from 'zod'

import { formatEdit } from '../flashblocks.ts'
import { defineMethod } from '../method.ts'

import type { ChainEditJSON } from '../flashblocks.ts'

/**
 * The test-control changes made since the /flashblocks stream's last frame, which its next frame will carry
 * (`metadata.flashchain_edits`), oldest first. Under manual or auto mining no frame may come for long: a replica asks
 * for these while its stream is quiet, so that an edit reaches it without waiting for a transaction. Public: the stream
 * tells the same to anyone.
 */
export const getUnsentEdits = defineMethod({
  name: 'flashchain_getUnsentEdits',
  access: 'public',
  params: z.tuple([]),
  handler: (_, { events }): ChainEditJSON[] => events.unsentEdits().map(formatEdit),
})
