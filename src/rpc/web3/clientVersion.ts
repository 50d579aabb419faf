import { z } from 'zod'

import { defineMethod } from '../method.ts'

const packageJson = (await import('../../../package.json', { with: { type: 'json' } })).default

/** flashchain/vVERSION/nodeVERSION, as geth's names itself and its runtime. */
export const clientVersionString = `flashchain/v${packageJson.version}/node${process.versions.node}`

export const clientVersion = defineMethod({
  name: 'web3_clientVersion',
  params: z.tuple([]),
  handler: (): string => clientVersionString,
})
