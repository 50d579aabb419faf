import { defineMethod } from '../method.ts'

import type { z } from 'zod'
import type { MethodContext } from '../method.ts'

type Run<Params extends z.ZodType> = (params: z.output<Params>, context: MethodContext) => unknown

/** Runs a test-control method for the node's owner only: it changes the dev chain, as the admin methods do. */
function ownerOnly<Params extends z.ZodType>(run: Run<Params>) {
  return async (params: z.output<Params>, context: MethodContext): Promise<void> => {
    context.wallet.requireOwner(context.request)
    await run(params, context)
  }
}

/** A test-control method under anvil's name, answering null as anvil does. */
export function anvilMethod<const Name extends string, Params extends z.ZodType>(name: Name, params: Params, run: Run<Params>) {
  const handle = ownerOnly(run)
  return defineMethod({ name, params, handler: (args, context): Promise<null> => handle(args, context).then((): null => null) })
}

/** A test-control method under Hardhat's name, answering true as Hardhat does. */
export function hardhatMethod<const Name extends string, Params extends z.ZodType>(name: Name, params: Params, run: Run<Params>) {
  const handle = ownerOnly(run)
  return defineMethod({ name, params, handler: (args, context): Promise<true> => handle(args, context).then((): true => true) })
}
