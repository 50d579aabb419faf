import { z } from 'zod'

import { InvalidParamsError } from '../../errors.ts'
import { defineMethod } from '../method.ts'
import { formatLog } from '../format.ts'
import { address, block, hash } from '../schemas.ts'

import type { Chain } from '../../chain/chain.ts'

/** geth's default cap on the blocks one eth_getLogs may scan. */
const MAX_BLOCK_RANGE = 10_000n

const topic = z.union([hash, z.array(hash), z.null()])

const filter = z.object({
  fromBlock: block.optional(),
  toBlock: block.optional(),
  blockHash: hash.optional(),
  address: z.union([address, z.array(address)]).optional(),
  topics: z.array(topic).max(4).optional(),
})

function numberOf(chain: Chain, at: z.output<typeof block>): bigint {
  const resolved = chain.resolve(at)
  return resolved.kind === 'pending' ? resolved.block.env.number : resolved.block.number
}

export const getLogs = defineMethod({
  params: z.tuple([filter]),
  handler: ([query], { chain }) => {
    let fromBlock: bigint
    let toBlock: bigint
    if (query.blockHash !== undefined) {
      if (query.fromBlock !== undefined || query.toBlock !== undefined) {
        throw new InvalidParamsError('invalid argument 0: cannot specify both BlockHash and FromBlock/Choose BlockHash or FromBlock/ToBlock')
      }
      fromBlock = toBlock = numberOf(chain, { blockHash: query.blockHash })
    } else {
      fromBlock = numberOf(chain, query.fromBlock ?? 'latest')
      toBlock = numberOf(chain, query.toBlock ?? 'latest')
      if (fromBlock > toBlock) throw new InvalidParamsError('invalid block range params')
      if (toBlock - fromBlock > MAX_BLOCK_RANGE) throw new InvalidParamsError(`block range exceeds the limit of ${MAX_BLOCK_RANGE} blocks`)
    }
    // An empty list names no address, so it allows any, as in geth.
    const addresses = query.address === undefined ? [] : [query.address].flat()
    const found = chain.getLogs({
      fromBlock,
      toBlock,
      addresses: addresses.length === 0 ? undefined : addresses,
      topics: query.topics,
      includePending: query.toBlock === 'pending',
    })
    return found.map((entry) => formatLog(entry))
  },
})
