import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'

import type { ForkInfo } from '../../chain/services/fork.ts'
import type { PendingBlock } from '../../chain/types.ts'
import type { Hex } from '../../hex.ts'

/** anvil's node information, in its shape: the head, the hardfork, and the next block's environment. */
export type NodeInfo = {
  currentBlockNumber: Hex
  currentBlockTimestamp: number
  currentBlockHash: Hex
  hardFork: string
  transactionOrder: 'fees'
  environment: { baseFee: Hex; chainId: number; gasLimit: Hex; gasPrice: Hex }
  /** The upstream as scheme, host and port: the page that asks may not see an API key in its path. */
  forkConfig: { forkUrl: string | null; forkBlockNumber: number | null; forkRetryBackoff: number | null }
}

/**
 * Public, as on anvil: the only test-control method a page may call. It tells what any page can read with eth_ methods
 * (the head, the fees, the chain id, the hardfork), and nothing of this run of the node (no instance or snapshot ids).
 */
export const nodeInfo = defineMethod({
  name: 'anvil_nodeInfo',
  access: 'public',
  params: z.tuple([]),
  handler: (_, { spec, blocks, pool, fork }): NodeInfo => {
    const head = blocks.head()
    const pending = blocks.block('pending') as PendingBlock
    return {
      currentBlockNumber: toQuantity(head.header.number),
      currentBlockTimestamp: Number(head.header.timestamp),
      currentBlockHash: head.hash,
      hardFork: spec.hardfork(),
      // The pool orders by tip, then by arrival.
      transactionOrder: 'fees',
      environment: {
        baseFee: toQuantity(pending.env.baseFeePerGas ?? 0n),
        chainId: Number(spec.chainId),
        gasLimit: toQuantity(pending.env.gasLimit),
        gasPrice: toQuantity(pool.suggestedFees().gasPrice),
      },
      forkConfig: forkConfigOf(fork.info()),
    }
  },
})

function forkConfigOf(fork: ForkInfo | undefined): NodeInfo['forkConfig'] {
  if (fork === undefined) return { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null }
  return { forkUrl: fork.upstream, forkBlockNumber: Number(fork.number), forkRetryBackoff: fork.retryBackoffMs }
}
