import { z } from 'zod'

import { InvalidParamsError } from '../../errors.ts'
import { defineMethod } from '../method.ts'
import { formatLog } from '../format.ts'
import { address, block, hash } from '../schemas.ts'

import type { BlockSpecifier } from '../../chain/types.ts'
import type { Hex } from '../../hex.ts'
import type { LogJSON } from '../format.ts'

/** geth's default cap on the blocks one eth_getLogs may scan. */
const MAX_BLOCK_RANGE = 10_000n

// A null among alternatives matches any topic there, as in geth, so the whole position becomes null.
const topic = z.union([
  hash,
  z.array(hash.nullable()).transform((alternatives) => (alternatives.includes(null) ? null : (alternatives as Hex[]))),
  z.null(),
])

const filter = z.object({
  fromBlock: block.optional(),
  toBlock: block.optional(),
  blockHash: hash.optional(),
  address: z.union([address, z.array(address)]).optional(),
  topics: z.array(topic).max(4).optional(),
})

/** `(filter)`: the logs of a block range or of one block by hash, as geth filters them. */
export const getLogs = defineMethod({
  name: 'eth_getLogs',
  params: z.tuple([filter]),
  handler: ([query], { chain }): LogJSON[] => {
    let fromBlock: bigint
    let toBlock: bigint
    if (query.blockHash !== undefined) {
      if (query.fromBlock !== undefined || query.toBlock !== undefined) {
        throw new InvalidParamsError('invalid argument 0: cannot specify both BlockHash and FromBlock/Choose BlockHash or FromBlock/ToBlock')
      }
      fromBlock = toBlock = chain.numberOf({ blockHash: query.blockHash })
    } else {
      // As geth (and execution-apis since 2026): a bound past the head is invalid params, not a missing block.
      const head = chain.head().header.number
      const bound = (at: BlockSpecifier) => {
        if (typeof at === 'bigint' && at > head) throw new InvalidParamsError('block range extends beyond current head block')
        return chain.numberOf(at)
      }
      fromBlock = bound(query.fromBlock ?? 'latest')
      toBlock = bound(query.toBlock ?? 'latest')
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
