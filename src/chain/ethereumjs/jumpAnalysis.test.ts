import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createEVM } from '@ethereumjs/evm'
import { hexToBytes } from '@ethereumjs/util'
import { beforeAll, describe, expect, test } from 'vitest'

import { cacheJumpAnalysis } from './jumpAnalysis.ts'

// PUSH1 4, JUMP → 4: JUMPDEST, PUSH0, STOP. The jump makes the interpreter analyse the code before PUSH0 runs,
// and PUSH0 (EIP-3855, Shanghai) is an invalid opcode before Shanghai.
const code = hexToBytes('0x600456005b5f00')

async function run(hardfork: Hardfork) {
  const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork }) })
  return evm.runCode({ code, gasLimit: 100_000n })
}

describe('cacheJumpAnalysis', () => {
  beforeAll(async () => {
    expect(await cacheJumpAnalysis()).toBe(true)
  })

  test('is installed for the pinned @ethereumjs/evm, and installing twice is harmless', async () => {
    expect(await cacheJumpAnalysis()).toBe(true)
    const { Interpreter } = (await import(new URL('./interpreter.js', import.meta.resolve('@ethereumjs/evm')).href)) as {
      Interpreter: { prototype: { _getValidJumpDestinations: { cached?: boolean } } }
    }
    expect(Interpreter.prototype._getValidJumpDestinations.cached).toBe(true)
  })

  test('one analysis per code array and opcode table', async () => {
    const { Interpreter } = (await import(new URL('./interpreter.js', import.meta.resolve('@ethereumjs/evm')).href)) as {
      Interpreter: { prototype: { _getValidJumpDestinations(this: unknown, code: Uint8Array): { jumps: Uint8Array } } }
    }
    const analyse = Interpreter.prototype._getValidJumpDestinations
    const table = (await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Osaka }) })) as unknown as { _opcodeMap: object }
    const self = {
      _evm: table,
      lookupOpInfo: (op: number) => (table._opcodeMap as Record<number, unknown>)[op],
      common: new Common({ chain: Mainnet, hardfork: Hardfork.Osaka }),
    }
    const first = analyse.call(self, code)
    expect(analyse.call(self, code)).toBe(first)
    expect([...first.jumps]).toEqual([0, 0, 0, 0, 1, 0, 0])
    // The same bytes in another array are analysed afresh (the cache never compares contents).
    expect(analyse.call(self, code.slice())).not.toBe(first)
  })

  test('the analysis of one hardfork is never used under another: PUSH0 runs under Osaka, is invalid under Paris', async () => {
    const osaka = await run(Hardfork.Osaka)
    expect(osaka.exceptionError).toBeUndefined()
    expect(osaka.runState?.stack.length).toBe(1)
    const paris = await run(Hardfork.Paris)
    expect(paris.exceptionError?.error).toBe('invalid opcode')
    expect((await run(Hardfork.Osaka)).exceptionError).toBeUndefined()
  })
})
