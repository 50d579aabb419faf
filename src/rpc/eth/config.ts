import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'

import type { ForkConfig } from '../../chain/types.ts'
import type { Hex } from '../../hex.ts'

export type ForkConfigJSON = {
  activationTime: number
  blobSchedule: { target: number; max: number; baseFeeUpdateFraction: number } | null
  chainId: Hex
  forkId: Hex
  precompiles: Record<string, Hex>
  systemContracts: Record<string, Hex>
}

/** EIP-7910 writes the activation time as a JSON number and the chain id as a quantity. */
function formatForkConfig(fork: ForkConfig | null): ForkConfigJSON | null {
  if (fork === null) return null
  return {
    activationTime: Number(fork.activationTime),
    blobSchedule: fork.blobSchedule,
    chainId: toQuantity(fork.chainId),
    forkId: fork.forkId,
    precompiles: fork.precompiles,
    systemContracts: fork.systemContracts,
  }
}

/** EIP-7910: the fork in force at the head, the next scheduled one and the last one (null when none is scheduled). */
export const config = defineMethod({
  name: 'eth_config',
  access: 'public',
  params: z.tuple([]),
  handler: (_params, { spec }): { current: ForkConfigJSON | null; next: ForkConfigJSON | null; last: ForkConfigJSON | null } => {
    const { current, next, last } = spec.config()
    return { current: formatForkConfig(current), next: formatForkConfig(next), last: formatForkConfig(last) }
  },
})
