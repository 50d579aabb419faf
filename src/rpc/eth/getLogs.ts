import { z } from 'zod'

import { InvalidParamsError } from '../errors.ts'
import { resolveLogQuery } from '../filters.ts'
import { formatLog } from '../format.ts'
import { defineMethod } from '../method.ts'
import { logFilter } from '../schemas.ts'

import type { LogJSON } from '../format.ts'

/** reth's --rpc-max-logs-per-response default: a larger answer would hold the node while it is built and sent. */
export const MAX_LOGS_PER_RESPONSE = 20_000

/**
 * `(filter)`: the logs of a block range or of one block by hash, as geth filters them. With `toBlock: "pending"`,
 * the logs of the pre-confirmed transactions too, as Base's node answers.
 */
export const getLogs = defineMethod({
  name: 'eth_getLogs',
  access: 'public',
  params: z.tuple([logFilter]),
  handler: ([query], { blocks }): LogJSON[] => {
    // As geth (and execution-apis since 2026): a bound past the head is invalid params, not a missing block.
    const head = blocks.head().header.number
    for (const bound of [query.fromBlock, query.toBlock]) {
      if (typeof bound === 'bigint' && bound > head) throw new InvalidParamsError('block range extends beyond current head block')
    }
    return blocks.logs({ ...resolveLogQuery(blocks, query), maxResults: MAX_LOGS_PER_RESPONSE }).map((entry) => formatLog(entry))
  },
})
