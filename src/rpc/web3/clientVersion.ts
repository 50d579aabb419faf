import { z } from 'zod'

import { defineMethod } from '../method.ts'

const packageJson = (await import('../../../package.json', { with: { type: 'json' } })).default

export const clientVersion = defineMethod({
  name: 'web3_clientVersion',
  params: z.tuple([]),
  handler: (): string => `flashchain/v${packageJson.version}/node${process.versions.node}`,
})
