import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, test } from 'vitest'

import { createChain } from './chain.ts'

describe('createChain', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'flashchain-chain-'))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  test('a chain id beyond 2^53 is kept exactly, also across a restart', async () => {
    const chainId = 2n ** 60n + 7n
    const first = await createChain({ chainId, mining: 'manual', dataDir })
    expect(first.spec.chainId).toBe(chainId)
    const genesisHash = first.blocks.head().hash
    await first.close()

    // A restart resumes the stored genesis, whatever the options say now.
    const second = await createChain({ chainId: 1n, mining: 'manual', dataDir })
    expect(second.spec.chainId).toBe(chainId)
    expect(second.blocks.head().hash).toBe(genesisHash)
    await second.close()
  })

  test('error: an invalid mnemonic is refused', async () => {
    await expect(createChain({ mnemonic: 'not a mnemonic at all', mining: 'manual' })).rejects.toThrow(
      'the mnemonic is not a valid English BIP-39 mnemonic',
    )
  })
})
