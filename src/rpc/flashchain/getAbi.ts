import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { AbiItem } from '../method.ts'

/** The events, functions and errors of the developer's contracts (`--abi`), each once; the console decodes with them. */
export const getAbi = defineMethod({
  name: 'flashchain_getAbi',
  params: z.tuple([]),
  handler: (_params, { wallet, node, request: caller }): readonly AbiItem[] => {
    wallet.requireOwner(caller)
    return node.projectAbis
  },
})
