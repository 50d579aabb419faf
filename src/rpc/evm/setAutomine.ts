import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { MethodContext } from '../method.ts'

const params = z.tuple([z.boolean()])

/** Seals each transaction as it arrives (true), or goes back to the interval clock or manual mining (false). */
function setAutomineOf([enabled]: z.output<typeof params>, { producer }: MethodContext): Promise<void> {
  return producer.setAutomine(enabled)
}

/** Answers true, as Hardhat does. */
export const setAutomine = defineMethod({
  name: 'evm_setAutomine',
  access: 'owner',
  params,
  handler: (args, context): Promise<true> => setAutomineOf(args, context).then((): true => true),
})

/** Answers null, as anvil does. */
export const anvilSetAutomine = defineMethod({
  name: 'anvil_setAutomine',
  access: 'owner',
  params,
  handler: (args, context): Promise<null> => setAutomineOf(args, context).then((): null => null),
})
