import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

import { describe, expect, test } from 'vitest'

const run = promisify(execFile)
const root = new URL('..', import.meta.url)

/**
 * Starts flashchain in a fresh Node process, optionally has its wallet sign a transfer, and reports which of the
 * heavy modules that process loaded. Every module an isolate loads stays resident, and the chain's modules are
 * loaded again by each execution worker.
 */
async function loadedModules(options: { sign: boolean }): Promise<{ viem: string[]; undici: boolean }> {
  const script = `
    import module from 'node:module'
    const viem = new Set()
    module.registerHooks({
      resolve(specifier, context, next) {
        const resolved = next(specifier, context)
        const match = /\\/node_modules\\/(viem\\/_esm\\/[^/]+)/.exec(resolved.url)
        if (match !== null) viem.add(match[1])
        return resolved
      },
    })
    const { createFlashchain } = await import('./src/index.ts')
    const flashchain = await createFlashchain({ port: 0, ephemeral: true, mining: 'manual', workers: 0 })
    if (${options.sign}) {
      const [from, to] = flashchain.chain.spec.accounts
      await flashchain.request({ method: 'eth_sendTransaction', params: [{ from: from.address, to: to.address, value: '0x1' }] })
    }
    await flashchain.close()
    const undici = process.moduleLoadList.includes('NativeModule internal/deps/undici/undici')
    process.stdout.write(JSON.stringify({ viem: [...viem].sort(), undici }))
  `
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: root, timeout: 60_000 })
  return JSON.parse(stdout) as { viem: string[]; undici: boolean }
}

describe('resident modules', () => {
  test('a running chain and server load neither viem nor Node’s fetch implementation', async () => {
    expect(await loadedModules({ sign: false })).toEqual({ viem: [], undici: false })
  })

  test('the wallet signs a transaction without viem: the chain signs it (libsecp256k1)', async () => {
    expect(await loadedModules({ sign: true })).toEqual({ viem: [], undici: false })
  })
})
