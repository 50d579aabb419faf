import { z } from 'zod'

import { defineMethod } from '../method.ts'

const packageJson = (await import('../../../package.json', { with: { type: 'json' } })).default

/**
 * anvil/flashchain/vVERSION/nodeVERSION. Tools decide whether they may use the dev methods (evm_*, hardhat_*,
 * anvil_*) by how this string begins: hardhat-network-helpers 1.x and 3.x and hardhat-predeploy accept only
 * `hardhatnetwork`, `zksync` or `anvil`, and scripts guard on `anvil/`. flashchain answers those methods as anvil
 * does, so it names itself anvil-compatible first, then itself and its runtime as geth does
 * (docs/compatibility.md).
 */
export const clientVersionString = `anvil/flashchain/v${packageJson.version}/node${process.versions.node}`

/** The package's version (`flashchain --version`). */
export const packageVersion: string = packageJson.version

export const clientVersion = defineMethod({
  name: 'web3_clientVersion',
  access: 'public',
  params: z.tuple([]),
  handler: (): string => clientVersionString,
})
