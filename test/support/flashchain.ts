import { afterAll, beforeAll } from 'vitest'

import { createFlashchain, type Flashchain, type FlashchainOptions } from '../../src/index.ts'

/**
 * For the tests beside each method: one real in-process flashchain per file (manual mining, in memory), and its
 * requests as the owner. `rejection` resolves with the error's wire fields, or undefined if the call succeeded.
 */
export function useFlashchain(options: FlashchainOptions = {}) {
  let flashchain: Flashchain | undefined
  beforeAll(async () => {
    flashchain = await createFlashchain({ port: 0, mining: 'manual', ...options })
  })
  afterAll(() => flashchain?.close())

  const request = (method: string, params: unknown[] = []) => flashchain!.request({ method, params })
  return {
    get flashchain() {
      return flashchain!
    },
    request,
    rejection: (method: string, params: unknown[] = []) =>
      request(method, params).then(
        () => undefined,
        (error: { code: number; message: string; data?: unknown }) =>
          error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data },
      ),
  }
}
