import { describe, expect, test } from 'vitest'

import { hardforks } from '../chain/spec/config.ts'
import { createFlashchain } from '../index.ts'
import { warmUp } from './warmUp.ts'

describe('warmUp', () => {
  test.each(hardforks)('runs the warm-up transactions through a scratch node on %s', async (hardfork) => {
    await expect(warmUp({ hardfork })).resolves.toBeUndefined()
  })

  test('leaves the chain the process serves as it was', async () => {
    const chain = await createFlashchain({ port: 0, mining: 'auto', workers: 0 })
    try {
      const [account] = chain.chain.spec.accounts
      const before = await Promise.all([
        chain.request({ method: 'eth_blockNumber' }),
        chain.request({ method: 'eth_getTransactionCount', params: [account!.address, 'latest'] }),
      ])
      await warmUp()
      const after = await Promise.all([
        chain.request({ method: 'eth_blockNumber' }),
        chain.request({ method: 'eth_getTransactionCount', params: [account!.address, 'latest'] }),
      ])
      expect(after).toEqual(before)
      expect(before).toEqual(['0x0', '0x0'])
    } finally {
      await chain.close()
    }
  })
})
