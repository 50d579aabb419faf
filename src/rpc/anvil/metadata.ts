import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { clientVersionString } from '../web3/clientVersion.ts'

import type { Hex } from '../../hex.ts'
import type { MethodContext } from '../method.ts'

/** What Hardhat answers: tools read it to recognise a development node; `forkedNetwork` only on a fork. */
export type Metadata = {
  clientVersion: string
  chainId: number
  instanceId: Hex
  latestBlockNumber: number
  latestBlockHash: Hex
  forkedNetwork?: ForkedNetwork
}

/** The upstream chain and the block forked, as Hardhat and anvil name them. */
type ForkedNetwork = { chainId: number; forkBlockNumber: number; forkBlockHash: Hex }

/**
 * For the owner only: the instance id tells one run of the node from another, and anvil's snapshot ids are what
 * evm_revert takes, which are no page's business (README, "Test control").
 */
function metadataOf({ spec, blocks, control, fork: forkService }: MethodContext): Metadata {
  const head = blocks.head()
  const fork = forkService.info()
  return {
    clientVersion: clientVersionString,
    chainId: Number(spec.chainId),
    instanceId: control.instanceId,
    latestBlockNumber: Number(head.header.number),
    latestBlockHash: head.hash,
    ...(fork === undefined
      ? {}
      : { forkedNetwork: { chainId: Number(fork.chainId), forkBlockNumber: Number(fork.number), forkBlockHash: fork.hash } }),
  }
}

export const hardhatMetadata = defineMethod({
  name: 'hardhat_metadata',
  access: 'owner',
  params: z.tuple([]),
  handler: (_, context): Metadata => metadataOf(context),
})

/** anvil's adds each live snapshot: its id, with the number and hash of the block it was taken at. */
export const anvilMetadata = defineMethod({
  name: 'anvil_metadata',
  access: 'owner',
  params: z.tuple([]),
  handler: (_, context): Omit<Metadata, 'forkedNetwork'> & { forkedNetwork: ForkedNetwork | null; snapshots: Record<Hex, [number, Hex]> } => {
    const metadata = metadataOf(context)
    const snapshots: Record<Hex, [number, Hex]> = {}
    for (const { id, number } of context.control.snapshots()) {
      const block = context.blocks.block(number)
      if (block?.kind === 'sealed') snapshots[`0x${id.toString(16)}`] = [Number(number), block.hash]
    }
    // anvil names no fork as null rather than leaving it out.
    return { ...metadata, forkedNetwork: metadata.forkedNetwork ?? null, snapshots }
  },
})
