import { z } from 'zod'

import { InvalidParamsError } from '../errors.ts'
import { anvilMethod, hardhatMethod } from './control.ts'

import type { MethodContext } from '../method.ts'

/**
 * anvil's and Hardhat's options, which only say what to fork. viem always sends `{ forking: { blockNumber } }`,
 * with a null block number when none was asked for.
 */
const params = z.union([
  z.tuple([]),
  z.tuple([
    z
      .strictObject({
        forking: z.strictObject({ jsonRpcUrl: z.string().nullish(), blockNumber: z.union([z.number(), z.string()]).nullish() }).optional(),
      })
      .nullish(),
  ]),
])

/** Back to block 0 as the chain was created. flashchain does not fork, so a fork URL or block is refused. */
function resetChain([options]: z.output<typeof params>, { control }: MethodContext) {
  const forking = options?.forking
  if (forking?.jsonRpcUrl != null || forking?.blockNumber != null) {
    throw new InvalidParamsError('flashchain does not fork: reset takes no jsonRpcUrl or blockNumber, and goes back to block 0')
  }
  return control.reset()
}

export const anvilReset = anvilMethod('anvil_reset', params, resetChain)
export const hardhatReset = hardhatMethod('hardhat_reset', params, resetChain)
