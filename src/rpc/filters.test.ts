import { describe, expect, test } from 'vitest'

import { useFlashchain } from '../../test/support/flashchain.ts'
import { createFilters } from './filters.ts'

import type { Hex } from '../hex.ts'

const flashchain = useFlashchain()
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('createFilters', () => {
  test('removes a filter not polled within the timeout, and what it gathered with it', async () => {
    let time = 0
    const filters = createFilters(flashchain.flashchain.chain, { timeout: 100, now: () => time })
    try {
      const idle = filters.newBlockFilter()
      const polled = filters.newBlockFilter()
      await flashchain.request('evm_mine')
      // Events reach filters on a later turn.
      await wait(20)
      time = 60
      expect(filters.changes(polled)).toHaveLength(1)
      // 150 after the idle one's last poll (its creation), 90 after the other's.
      time = 150
      // The sweep runs every quarter of the timeout (25 ms of real time here): let several go by.
      await wait(300)
      expect(() => filters.changes(idle)).toThrow('filter not found')
      expect(filters.changes(polled)).toEqual([])
      expect(filters.uninstall(polled)).toBe(true)
    } finally {
      filters.close()
    }
  })

  test('caps: past the cap per origin or in all, -32005 with the cap in its message; uninstalling frees a place', () => {
    const filters = createFilters(flashchain.flashchain.chain, { maxFilters: 5, maxFiltersPerOrigin: 2 })
    try {
      const page = 'http://localhost:3000'
      const first = filters.newBlockFilter(page)
      filters.newPendingTransactionFilter(false, page)
      expect(() => filters.newLogFilter({}, page)).toThrow(
        expect.objectContaining({ code: -32005, message: 'too many filters: 2 per origin (http://localhost:3000); eth_uninstallFilter frees one' }),
      )
      // Another origin, and callers without one, have places of their own.
      filters.newBlockFilter('http://other.test')
      filters.newBlockFilter()
      expect(() => filters.newBlockFilter()).not.toThrow()
      expect(() => filters.newBlockFilter()).toThrow(
        expect.objectContaining({
          code: -32005,
          message: 'too many filters: 2 per origin (requests without an Origin header); eth_uninstallFilter frees one',
        }),
      )
      expect(() => filters.newBlockFilter('http://third.test')).toThrow(
        expect.objectContaining({ code: -32005, message: 'too many filters: 5 in all; eth_uninstallFilter frees one' }),
      )
      expect(filters.size).toBe(5)
      expect(filters.uninstall(first)).toBe(true)
      expect(filters.newLogFilter({}, page)).toMatch(/^0x[0-9a-f]{32}$/)
      expect(() => filters.newBlockFilter('http://third.test')).toThrow(expect.objectContaining({ code: -32005 }))
    } finally {
      filters.close()
    }
  })

  test('a filter that falls more than the backlog behind is removed; the polled one keeps every change', async () => {
    const filters = createFilters(flashchain.flashchain.chain, { maxBacklog: 3 })
    try {
      const idle = filters.newBlockFilter()
      const polled = filters.newBlockFilter()
      const hashes: Hex[] = []
      const seen: unknown[] = []
      for (let i = 0; i < 4; i++) {
        await flashchain.request('evm_mine')
        hashes.push(((await flashchain.request('eth_getBlockByNumber', ['latest', false])) as { hash: Hex }).hash)
        await wait(20)
        seen.push(...filters.changes(polled))
      }
      expect(seen).toEqual(hashes)
      expect(() => filters.changes(idle)).toThrow('filter not found')
      expect(filters.size).toBe(1)
    } finally {
      filters.close()
    }
  })

  test('as geth, eth_getFilterLogs does not keep a filter alive; only eth_getFilterChanges does', async () => {
    let time = 0
    const filters = createFilters(flashchain.flashchain.chain, { timeout: 100, now: () => time })
    try {
      const id = filters.newLogFilter({})
      time = 60
      expect(filters.query(id)).toEqual({})
      time = 150
      await wait(300)
      expect(() => filters.query(id)).toThrow('filter not found')
    } finally {
      filters.close()
    }
  })

  test('gathers nothing once closed', async () => {
    const filters = createFilters(flashchain.flashchain.chain)
    const id: Hex = filters.newBlockFilter()
    filters.close()
    await flashchain.request('evm_mine')
    expect(() => filters.changes(id)).toThrow('filter not found')
  })
})
