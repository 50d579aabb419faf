import { describe, expect, test } from 'vitest'

import packageJson from '../../../package.json' with { type: 'json' }
import { useFlashchain } from '../../../test/support/flashchain.ts'

const { request } = useFlashchain()

describe('web3_clientVersion', () => {
  // hardhat-network-helpers and hardhat-predeploy take a node for a development node when this begins with anvil.
  test('default: anvil-compatible first, then flashchain, its version and its runtime', async () => {
    expect(await request('web3_clientVersion', [])).toBe(`anvil/flashchain/v${packageJson.version}/node${process.versions.node}`)
  })

  test('default: hardhat_metadata and anvil_metadata carry the same string', async () => {
    const version = await request('web3_clientVersion', [])
    expect(((await request('hardhat_metadata', [])) as { clientVersion: string }).clientVersion).toBe(version)
    expect(((await request('anvil_metadata', [])) as { clientVersion: string }).clientVersion).toBe(version)
  })
})
