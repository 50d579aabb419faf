import { z } from 'zod'

import { RefusedError } from '../../chain/errors.ts'
import { defineMethod } from '../method.ts'

import type { FollowStatus } from '../method.ts'

/** A replica's view of its sequencer; on any other node, refused. Public: what it tells, any client can read. */
export const followStatus = defineMethod({
  name: 'flashchain_followStatus',
  access: 'public',
  params: z.tuple([]),
  handler: (_, { node }): FollowStatus => {
    if (node.followStatus === undefined) throw new RefusedError('this node follows no sequencer (flashchain follow)')
    return node.followStatus()
  },
})
