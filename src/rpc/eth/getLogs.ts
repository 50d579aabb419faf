import { z } from 'zod'

import { InvalidParamsError } from '../errors.ts'
import { resolveLogQuery } from '../filters.ts'
import { formatLog } from '../format.ts'
import { defineMethod } from '../method.ts'
import { logFilter } from '../schemas.ts'

import type { ForkService } from '../../chain/services/fork.ts'
import type { LogQuery } from '../filters.ts'
import type { MethodContext } from '../method.ts'

/** reth's --rpc-max-logs-per-response default: a larger answer would hold the node while it is built and sent. */
export const MAX_LOGS_PER_RESPONSE = 20_000

/**
 * `(filter)`: the logs of a block range or of one block by hash, as geth filters them. With `toBlock: "pending"`,
 * the logs of the pre-confirmed transactions too, as Base's node answers. On a fork, a range is split at the fork
 * block: the upstream answers for the blocks up to it, this chain for the rest.
 */
export const getLogs = defineMethod({
  name: 'eth_getLogs',
  access: 'public',
  params: z.tuple([logFilter]),
  handler: ([query], context) => logsOf(query, context),
})

/** The logs a query matches now, as eth_getLogs answers them (and eth_getFilterLogs, for a filter's query). */
export async function logsOf(query: LogQuery, { blocks, fork }: Pick<MethodContext, 'blocks' | 'fork'>): Promise<unknown[]> {
  // As geth (and execution-apis since 2026): a bound past the head is invalid params, not a missing block.
  const head = blocks.head().header.number
  for (const bound of [query.fromBlock, query.toBlock]) {
    if (typeof bound === 'bigint' && bound > head) throw new InvalidParamsError('block range extends beyond current head block')
  }
  const upstream = await upstreamPart(query, fork)
  if (upstream?.whole === true) return upstream.logs
  const local = upstream === undefined ? query : { ...query, fromBlock: upstream.after }
  const logs = blocks.logs({ ...resolveLogQuery(blocks, local), maxResults: MAX_LOGS_PER_RESPONSE }).map((entry) => formatLog(entry))
  return upstream === undefined ? logs : [...upstream.logs, ...logs]
}

/**
 * The upstream's logs of the query's blocks up to the fork block, and where this chain's part starts (`after`), or
 * whether the upstream answered it whole; undefined when no block of it is the upstream's.
 */
async function upstreamPart(
  query: LogQuery,
  fork: ForkService,
): Promise<{ logs: unknown[]; whole: true } | { logs: unknown[]; whole: false; after: bigint } | undefined> {
  const info = fork.info()
  if (info === undefined) return undefined
  const criteria = { address: query.address, topics: query.topics }
  if (query.blockHash !== undefined) {
    const at = await fork.upstreamBlock({ blockHash: query.blockHash }, 'blocks')
    return at === undefined
      ? undefined
      : { logs: (await fork.at('eth_getLogs', [{ ...criteria, blockHash: query.blockHash }])) as unknown[], whole: true }
  }
  const from = await fork.upstreamBlock(query.fromBlock ?? 'latest', 'blocks')
  if (from === undefined || typeof from !== 'string') return undefined
  const to = await fork.upstreamBlock(query.toBlock ?? 'latest', 'blocks')
  const last = typeof to === 'string' ? to : `0x${info.number.toString(16)}`
  if (BigInt(from) > BigInt(last)) throw new InvalidParamsError('invalid block range params')
  const logs = (await fork.at('eth_getLogs', [{ ...criteria, fromBlock: from, toBlock: last }])) as unknown[]
  return to === undefined ? { logs, whole: false, after: info.number + 1n } : { logs, whole: true }
}
