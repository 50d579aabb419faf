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

/**
 * Back to the first block as the chain was created. On a fork, `forking` forks again: at `blockNumber` (the
 * upstream's latest when it is null), of `jsonRpcUrl` (the same upstream when it is null). A chain of its own does
 * not become a fork (docs/fork.md).
 */
function resetChain([options]: z.output<typeof params>, { control, fork }: MethodContext) {
  const forking = options?.forking
  if (forking === undefined) return control.reset()
  if (fork.info() === undefined) {
    if (forking.jsonRpcUrl == null && forking.blockNumber == null) return control.reset()
    throw new InvalidParamsError('this chain is not a fork: reset takes no jsonRpcUrl or blockNumber here; start flashchain with --fork-url to fork')
  }
  return control.reset({ url: forking.jsonRpcUrl ?? undefined, blockNumber: blockNumberOf(forking.blockNumber) })
}

/** A block number as anvil and Hardhat take it: a JSON number, or a decimal or hex string. */
function blockNumberOf(value: number | string | null | undefined): bigint | undefined {
  if (value == null) return undefined
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new InvalidParamsError(`forking.blockNumber must be a block number, got ${value}`)
    return BigInt(value)
  }
  if (!/^(0x[0-9a-fA-F]+|\d+)$/.test(value)) throw new InvalidParamsError(`forking.blockNumber must be a block number, got "${value}"`)
  return BigInt(value)
}

export const anvilReset = anvilMethod('anvil_reset', params, resetChain)
export const hardhatReset = hardhatMethod('hardhat_reset', params, resetChain)
