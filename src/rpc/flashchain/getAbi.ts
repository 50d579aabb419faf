import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { AbiItem } from '../method.ts'

/** The events, functions and errors of the developer's contracts (`--abi`), each once; the console decodes with them. */
export const getAbi = defineMethod({
  name: 'flashchain_getAbi',
  access: 'owner',
  params: z.tuple([]),
  handler: (_params, { node }): readonly AbiItem[] => {
    return node.projectAbis
  },
})
