import { describe, expect, test } from 'vitest'

import { useFlashchain } from '../../test/support/flashchain.ts'
import { createFilters } from './filters.ts'

import type { Hex } from '../hex.ts'

const flashchain = useFlashchain()
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('createFilters', () => {
  test('removes a filter not polled within the timeout, and what it gathered with it', async () => {
    const filters = createFilters(flashchain.flashchain.chain, { timeout: 100 })
    try {
      const idle = filters.newBlockFilter()
      const polled = filters.newBlockFilter()
      await flashchain.request('evm_mine')
      for (let i = 0; i < 6; i++) {
        await wait(40)
        filters.changes(polled)
      }
      expect(() => filters.changes(idle)).toThrow('filter not found')
      expect(filters.uninstall(idle)).toBe(false)
      // The polled one lived on and saw the block.
      expect(filters.uninstall(polled)).toBe(true)
    } finally {
      filters.close()
    }
  })

  test('gathers nothing once uninstalled or closed', async () => {
    const filters = createFilters(flashchain.flashchain.chain)
    const id: Hex = filters.newBlockFilter()
    filters.close()
    await flashchain.request('evm_mine')
    expect(() => filters.changes(id)).toThrow('filter not found')
  })
})
