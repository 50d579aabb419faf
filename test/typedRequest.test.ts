import { describe, expect, test } from 'vitest'

import { createFlashchain } from '../src/index.ts'

import type { Hex } from '../src/hex.ts'

// tsc checks this file with the rest of the tests: an @ts-expect-error that finds no error fails the type check.
describe('createFlashchain().request', () => {
  test("is typed with each method's params and result, and accepts other names untyped", async () => {
    const flashchain = await createFlashchain({ port: 0, mining: 'manual', workers: 0 })
    try {
      const code: Hex = await flashchain.request({ method: 'eth_getCode', params: ['0x7821000000000000000000000000000000007821'] })
      expect(code).toMatch(/^0x[0-9a-f]+$/)
      const block: Hex = await flashchain.request({ method: 'eth_blockNumber' })
      expect(block).toBe('0x0')
      // @ts-expect-error: an address is a string, not a number
      await expect(flashchain.request({ method: 'eth_getCode', params: [1] })).rejects.toMatchObject({ code: -32602 })
      const unknown: unknown = flashchain.request({ method: 'no_suchMethod', params: [1, 2] })
      await expect(unknown).rejects.toMatchObject({ code: -32601 })
    } finally {
      await flashchain.close()
    }
  })
})
