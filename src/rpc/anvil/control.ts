import { defineMethod } from '../method.ts'

import type { z } from 'zod'
import type { MethodContext } from '../method.ts'

type Run<Params extends z.ZodType> = (params: z.output<Params>, context: MethodContext) => unknown

/**
 * A test-control method under anvil's name, answering null as anvil does. It changes the dev chain, as the admin
 * methods do, so it is the node's owner's.
 */
export function anvilMethod<const Name extends string, Params extends z.ZodType>(name: Name, params: Params, run: Run<Params>) {
  return defineMethod({
    name,
    access: 'owner',
    params,
    handler: async (args, context): Promise<null> => {
      await run(args, context)
      return null
    },
  })
}

/** A test-control method under Hardhat's name, answering true as Hardhat does; the owner's, as anvil's. */
export function hardhatMethod<const Name extends string, Params extends z.ZodType>(name: Name, params: Params, run: Run<Params>) {
  return defineMethod({
    name,
    access: 'owner',
    params,
    handler: async (args, context): Promise<true> => {
      await run(args, context)
      return true
    },
  })
}
