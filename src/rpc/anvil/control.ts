import { defineMethod } from '../method.ts'

import type { z } from 'zod'
import type { MethodContext } from '../method.ts'

type Run<Params extends z.ZodType> = (params: z.output<Params>, context: MethodContext) => unknown

/**
 * A test-control method: it changes the dev chain, as the admin methods do, so it is the node's owner's. It answers
 * what the node it is named after answers once `run` is done.
 */
function testControlMethod<const Name extends string, Params extends z.ZodType, const Answer>(
  name: Name,
  params: Params,
  run: Run<Params>,
  answer: Answer,
) {
  return defineMethod({
    name,
    access: 'owner',
    params,
    handler: async (args, context): Promise<Answer> => {
      await run(args, context)
      return answer
    },
  })
}

/** A test-control method under anvil's name, answering null as anvil does. */
export function anvilMethod<const Name extends string, Params extends z.ZodType>(name: Name, params: Params, run: Run<Params>) {
  return testControlMethod(name, params, run, null)
}

/** A test-control method under Hardhat's name, answering true as Hardhat does. */
export function hardhatMethod<const Name extends string, Params extends z.ZodType>(name: Name, params: Params, run: Run<Params>) {
  return testControlMethod(name, params, run, true)
}
