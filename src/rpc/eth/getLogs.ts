import { z } from 'zod'

import { InvalidParamsError } from '../../errors.ts'
import { defineMethod } from '../method.ts'
import { formatLog } from '../format.ts'
import { logFilter } from '../schemas.ts'

import type { LogJSON } from '../format.ts'

/** geth's default cap on the blocks one eth_getLogs may scan. */
const MAX_BLOCK_RANGE = 10_000n

/** `(filter)`: the logs of a block range or of one block by hash, as geth filters them. */
export const getLogs = defineMethod({
  name: 'eth_getLogs',
  params: z.tuple([logFilter]),
  handler: ([query], { chain }): LogJSON[] => {
    let fromBlock: bigint
    let toBlock: bigint
    if (query.blockHash !== undefined) {
      if (query.fromBlock !== undefined || query.toBlock !== undefined) {
        throw new InvalidParamsError('invalid argument 0: cannot specify both BlockHash and FromBlock/Choose BlockHash or FromBlock/ToBlock')
      }
      fromBlock = toBlock = chain.numberOf({ blockHash: query.blockHash })
    } else {
      fromBlock = chain.numberOf(query.fromBlock ?? 'latest')
      toBlock = chain.numberOf(query.toBlock ?? 'latest')
      if (fromBlock > toBlock) throw new InvalidParamsError('invalid block range params')
      if (toBlock - fromBlock > MAX_BLOCK_RANGE) throw new InvalidParamsError(`block range exceeds the limit of ${MAX_BLOCK_RANGE} blocks`)
    }
    const found = chain.logs({
      fromBlock,
      toBlock,
      addresses: query.address === undefined ? undefined : [query.address].flat(),
      topics: query.topics,
      includePending: query.toBlock === 'pending',
    })
    return found.map((entry) => formatLog(entry))
  },
})
