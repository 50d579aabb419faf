import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createEVM } from '@ethereumjs/evm'
import { Account, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { devGenesis } from '../spec/devGenesis.ts'
import { createExecutor } from './executor.ts'
import { attachGasProbe } from './gasProbe.ts'
import { parseGethGenesis } from '../spec/genesis.ts'
import { createOverlay } from '../state/overlay.ts'
import { createStateDiff } from '../state/types.ts'
import { emptyState, putAccount, testBlockEnv } from '../testing/fixtures.ts'

import type { CallOutcome, ExecutionView } from './executor.ts'
import type { StateReader } from '../state/types.ts'
import type { Hex } from '../../hex.ts'

const sender = '0x00000000000000000000000000000000000000a1' as Hex
const contract = '0x00000000000000000000000000000000000000c0' as Hex

/** Hand-assembled runtime code, one behaviour each. */
const codes = {
  // PUSH1 1, PUSH0, SSTORE, STOP: one 0 → 1 write (22,100 gas), far above the EIP-2200 stipend.
  storeOnce: '0x60015f5500',
  // PUSH1 1, PUSH0, SSTORE, PUSH0, PUSH0, SSTORE, STOP: 0 → 1 → 0; the second write costs 100 and needs > 2300 left.
  setAndClear: '0x60015f555f5f5500',
  // GAS, POP, STOP
  readsGas: '0x5a5000',
  // CALL(0xffff gas, identity precompile, no value, no data), POP, STOP
  calls: '0x5f5f5f5f5f600461fffff15000',
  // CALLER, BALANCE (the sender is warm: 100), POP, STOP
  readsCallerBalance: '0x33315000',
  // PUSH0, PUSH0, REVERT
  reverts: '0x5f5ffd',
} satisfies Record<string, Hex>

function stateWith(code: Hex): StateReader {
  const diff = createStateDiff()
  putAccount(diff, contract, { code: hexToBytes(code) })
  putAccount(diff, sender, { balance: 10n ** 18n, nonce: 0n })
  return createOverlay(diff, emptyState)
}

const env = testBlockEnv()

const { common } = parseGethGenesis(devGenesis({ chainId: 1337n, hardfork: 'prague', gasLimit: env.gasLimit, timestamp: 0, alloc: {} }))
const executor = await createExecutor({ common, blockHashes: () => undefined })

async function run(code: Hex, gas: bigint, priced = false): Promise<CallOutcome> {
  const view: ExecutionView = { env, state: stateWith(code) }
  return executor.call({ from: sender, to: contract, ...(priced ? { gasPrice: 1n } : {}) }, gas, view)
}

/** The run at a high ceiling, and whether the limit it names is exactly the least that succeeds. */
async function proven(code: Hex, priced = false) {
  const ceiling = await run(code, 1_000_000n, priced)
  expect(ceiling.kind).toBe('success')
  if (ceiling.kind === 'invalid' || ceiling.sufficientGas === undefined) return { ceiling, sufficientGas: undefined }
  const { sufficientGas } = ceiling
  expect((await run(code, sufficientGas, priced)).kind).toBe('success')
  expect((await run(code, sufficientGas - 1n, priced)).kind).not.toBe('success')
  return { ceiling, sufficientGas }
}

describe('attachGasProbe', () => {
  test('default: a run that never looks at its gas needs exactly what it consumed', async () => {
    const { ceiling, sufficientGas } = await proven(codes.storeOnce)
    expect(ceiling.kind === 'success' && sufficientGas).toBe(ceiling.kind === 'success' ? ceiling.gasConsumed : false)
    // 21,000 + PUSH1 + PUSH0 + a cold 0 → 1 SSTORE.
    expect(sufficientGas).toBe(21_000n + 3n + 2n + 22_100n)
  })

  test('an SSTORE near the end needs more than 2300 gas left: the limit covers the EIP-2200 stipend', async () => {
    const { ceiling, sufficientGas } = await proven(codes.setAndClear)
    if (ceiling.kind !== 'success') throw new Error('unreachable')
    // The second SSTORE costs 100: with only what the run consumed, 100 would be left there, and it would fail.
    expect(sufficientGas).toBeGreaterThan(ceiling.gasConsumed)
    expect(sufficientGas).toBe(21_000n + 3n + 2n + 22_100n + 2n + 2n + 2300n + 1n)
  })

  test('a run that reads GAS proves nothing', async () => {
    expect((await proven(codes.readsGas)).sufficientGas).toBeUndefined()
  })

  test('a run that calls proves nothing: the callee gets at most 63/64 of what is left', async () => {
    expect((await proven(codes.calls)).sufficientGas).toBeUndefined()
  })

  test('args: a priced run that reads a balance proves nothing; unpriced, the balance does not move with the limit', async () => {
    expect((await proven(codes.readsCallerBalance, true)).sufficientGas).toBeUndefined()
    expect((await proven(codes.readsCallerBalance, false)).sufficientGas).toBe(21_000n + 2n + 100n + 2n)
  })

  test('a revert is not a success and names no limit', async () => {
    const outcome = await run(codes.reverts, 1_000_000n)
    expect(outcome.kind).toBe('revert')
    expect(outcome.kind !== 'invalid' && outcome.sufficientGas).toBeUndefined()
  })

  test('the watch survives a hardfork change, which rebuilds the opcode table', async () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun })
    const evm = await createEVM({ common })
    const probe = attachGasProbe(evm)
    const address = createAddressFromString(contract)
    await evm.stateManager.putAccount(address, new Account())
    await evm.stateManager.putCode(address, hexToBytes(codes.readsGas))
    for (const hardfork of [Hardfork.Cancun, Hardfork.Prague, Hardfork.Shanghai]) {
      common.setHardfork(hardfork)
      probe.start(false)
      const { execResult } = await evm.runCall({ to: address, gasLimit: 100_000n })
      expect(execResult.exceptionError).toBeUndefined()
      expect(probe.sufficientGas(100_000n, execResult.executionGasUsed)).toBeUndefined()
    }
  })
})
