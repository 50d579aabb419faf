import { z } from 'zod'

import { formatEdit } from '../flashblocks.ts'
import { defineMethod } from '../method.ts'

import type { ChainEditJSON } from '../flashblocks.ts'

/** The changes, and the `flashchain_sequence` of the frame that will carry them. */
export type UnsentEditsJSON = { sequence: number; edits: ChainEditJSON[] }

/**
 * The test-control changes made since the /flashblocks stream's last frame, which its next frame will carry
 * (`metadata.flashchain_edits`), oldest first, with that frame's sequence. Under manual or auto mining no frame may
 * come for long: a replica asks for these while its stream is quiet, so that an edit reaches it without waiting for a
 * transaction, and skips them in the frame that carries them. Public: the stream tells the same to anyone.
 */
export const getUnsentEdits = defineMethod({
  name: 'flashchain_getUnsentEdits',
  access: 'public',
  params: z.tuple([]),
  handler: (_, { events }): UnsentEditsJSON => {
    const { sequence, edits } = events.unsentEdits()
    return { sequence, edits: edits.map(formatEdit) }
  },
})
