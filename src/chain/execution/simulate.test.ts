// simulateCall against runTx: every call here runs both ways, through executor.call (simulated) and
// executor.execute (runTx, which keeps writes), and the answers must be the same to the last gas unit and word.
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { createVM } from '@ethereumjs/vm'
import { describe, expect, test } from 'vitest'

import { devGenesis } from '../spec/devGenesis.ts'
import { invalidCallError } from '../gethErrors.ts'
import { createCallTransaction, createEnvBlock, createExecutor } from './executor.ts'
import { expectsPublishedBuild } from '../../../test/support/ethereumjsBuild.ts'
import { sharesWarmAddresses, simulateCall } from './simulate.ts'
import { FlatStateManager } from '../state/stateManager.ts'
import { parseGethGenesis } from '../spec/genesis.ts'
import { createOverlay } from '../state/overlay.ts'
import { createStateDiff } from '../state/types.ts'
import { emptyState, putAccount, testBlockEnv } from '../testing/fixtures.ts'

import type { CallOutcome, CallRequest, ExecutionView } from './executor.ts'
import type { StateReader } from '../state/types.ts'
import type { Hex } from '../../hex.ts'

const sender = '0x00000000000000000000000000000000000000a1' as Hex
const target = '0x00000000000000000000000000000000000000c0' as Hex
const eoa = '0x00000000000000000000000000000000000000e0' as Hex
const contractSender = '0x00000000000000000000000000000000000000c5' as Hex
const delegatedSender = '0x00000000000000000000000000000000000000d7' as Hex

const codes = {
  // PUSH1 1, PUSH0, SSTORE, STOP
  storeOnce: '0x60015f5500',
  // 0 → 1 → 0 in one call: a refund, capped at a fifth of the gas used.
  setAndClear: '0x60015f555f5f5500',
  // CALLER, ORIGIN, GASPRICE, CALLVALUE, SELFBALANCE, BALANCE(CALLER) into memory words 0–5, RETURN 192 bytes.
  environment: '0x335f52326020523a6040523460605247608052333160a05260c05ff3',
  // SLOAD 7, then return it: with an access list naming slot 7 it costs 100 instead of 2100.
  loadsSlot: '0x6007545f5260205ff3',
  // PUSH1 0x2a, PUSH0, MSTORE, PUSH1 32, PUSH0, REVERT: reverts with one word.
  reverts: '0x602a5f5260205ffd',
  // CALL(0xffff gas, identity precompile, no value, 32 bytes in, 32 out), then RETURN the 32 bytes.
  callsPrecompile: '0x602a5f5260205f60205f5f600461fffff15060205ff3',
  // JUMPDEST, PUSH0, JUMP: loops until out of gas.
  loops: '0x5b5f56',
  // BALANCE(COINBASE), POP, STOP: the coinbase is warm from the start (EIP-3651).
  readsCoinbase: '0x41315000',
  // LOG1 with a topic, then STOP.
  logs: '0x60ff5f5260015f5fa100',
} satisfies Record<string, Hex>

function stateWith(code: Hex): StateReader {
  const diff = createStateDiff()
  putAccount(diff, target, { code: hexToBytes(code), balance: 7n })
  putAccount(diff, sender, { balance: 10n ** 18n })
  putAccount(diff, contractSender, { code: hexToBytes(codes.storeOnce), balance: 10n ** 18n })
  putAccount(diff, delegatedSender, { code: hexToBytes(`0xef0100${target.slice(2)}`), balance: 10n ** 18n })
  diff.storage.set(target, { cleared: false, slots: new Map([[`0x${'00'.repeat(31)}07` as Hex, Uint8Array.of(9)]]) })
  return createOverlay(diff, emptyState)
}

const env = testBlockEnv({ baseFeePerGas: 1_000n, coinbase: '0x00000000000000000000000000000000000000cb' })

const { common } = parseGethGenesis(devGenesis({ chainId: 1337n, hardfork: 'osaka', gasLimit: env.gasLimit, timestamp: 0, alloc: {} }))
const executor = await createExecutor({ common, blockHashes: () => undefined })

/** The answer as the engine gives it: for an invalid call, the error's class and fields (the RPC layer words them). */
function answer(outcome: CallOutcome, from: Hex) {
  if (outcome.kind === 'invalid') return { kind: 'invalid' as const, error: { ...invalidCallError(outcome.error, from) } }
  return { ...outcome, returnValue: bytesToHex(outcome.returnValue) }
}

async function bothWays(code: Hex, request: CallRequest, gas = 1_000_000n) {
  const view: ExecutionView = { env, state: stateWith(code) }
  const simulated = answer(await executor.call(request, gas, view), request.from ?? target)
  const { outcome } = await executor.execute(request, gas, view)
  expect(simulated).toEqual(answer(outcome, request.from ?? target))
  return simulated
}

describe('simulateCall answers as runTx does', () => {
  test('default: a storage write', async () => {
    expect(await bothWays(codes.storeOnce, { from: sender, to: target })).toMatchObject({ kind: 'success', gasUsed: 43_105n })
  })

  test('a refund capped at a fifth of the gas used', async () => {
    const result = await bothWays(codes.setAndClear, { from: sender, to: target })
    expect(result).toMatchObject({ kind: 'success' })
    if (result.kind !== 'success') throw new Error('unreachable')
    expect(result.gasUsed).toBeLessThan(result.gasConsumed)
  })

  test('what the code sees of the caller, the origin, the gas price, the value and the balances', async () => {
    const result = await bothWays(codes.environment, { from: sender, to: target, value: 5n })
    expect(result).toMatchObject({ kind: 'success' })
    await bothWays(codes.environment, { from: sender, to: target, type: 0 })
    await bothWays(codes.environment, { to: target })
  })

  test('an access list makes its slots warm', async () => {
    const withList = await bothWays(codes.loadsSlot, {
      from: sender,
      to: target,
      accessList: [{ address: target, storageKeys: [`0x${'00'.repeat(31)}07`] }],
    })
    const without = await bothWays(codes.loadsSlot, { from: sender, to: target })
    // The list costs 2400 + 1900 of intrinsic gas and saves the SLOAD's 2000 of cold access.
    expect(withList.kind === 'success' && without.kind === 'success' && withList.gasConsumed - without.gasConsumed).toBe(2_400n + 1_900n - 2_000n)
  })

  test('reverts, precompile calls, logs and running out of gas', async () => {
    expect(await bothWays(codes.reverts, { from: sender, to: target })).toMatchObject({ kind: 'revert', returnValue: `0x${'00'.repeat(31)}2a` })
    expect(await bothWays(codes.callsPrecompile, { from: sender, to: target })).toMatchObject({
      kind: 'success',
      returnValue: `0x${'00'.repeat(31)}2a`,
    })
    expect(await bothWays(codes.logs, { from: sender, to: target })).toMatchObject({ kind: 'success' })
    expect(await bothWays(codes.readsCoinbase, { from: sender, to: target })).toMatchObject({ kind: 'success', gasUsed: 21_000n + 2n + 100n + 2n })
    expect(await bothWays(codes.loops, { from: sender, to: target }, 50_000n)).toMatchObject({ kind: 'halt', error: 'out of gas', gasUsed: 50_000n })
  })

  test('a value transfer to an account without code, and the EIP-7623 calldata floor', async () => {
    expect(await bothWays(codes.storeOnce, { from: sender, to: eoa, value: 3n })).toMatchObject({ kind: 'success', gasUsed: 21_000n })
    // 1000 zero bytes: 1000 tokens; the floor 21000 + 10 × 1000 is above 21000 + 4 × 1000.
    expect(await bothWays(codes.storeOnce, { from: sender, to: eoa, data: `0x${'00'.repeat(1000)}` })).toMatchObject({
      kind: 'success',
      gasUsed: 31_000n,
    })
  })

  test('error: a gas limit below the intrinsic gas, or the floor', async () => {
    expect(await bothWays(codes.storeOnce, { from: sender, to: target }, 20_000n)).toEqual({
      kind: 'invalid',
      error: { name: 'TransactionRejectedError', reason: { kind: 'intrinsicGasTooLow', gas: 20_000n, minimum: 21_000n } },
    })
    expect(await bothWays(codes.storeOnce, { from: sender, to: eoa, data: `0x${'00'.repeat(1000)}` }, 30_000n)).toMatchObject({ kind: 'invalid' })
  })

  test('a sender with code may call, as geth lets eth_call and eth_estimateGas (no EIP-3607 check)', async () => {
    expect(await bothWays(codes.storeOnce, { from: contractSender, to: target })).toMatchObject({ kind: 'success' })
    expect(await bothWays(codes.storeOnce, { from: delegatedSender, to: target })).toMatchObject({ kind: 'success' })
  })
})

// Prague from genesis, Osaka from a later time: P256VERIFY (0x100) is a precompile, and so warm, only in Osaka.
const forkingGenesis = devGenesis({ chainId: 1337n, hardfork: 'prague', gasLimit: env.gasLimit, timestamp: 0, alloc: {} })
const osakaTime = 1_800_000_000n
const forkingConfig = forkingGenesis.config as Record<string, unknown>
forkingConfig.osakaTime = Number(osakaTime)
forkingConfig.blobSchedule = { ...(forkingConfig.blobSchedule as object), osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 } }
const forking = await createExecutor({ common: parseGethGenesis(forkingGenesis).common, blockHashes: () => undefined })

describe('simulateCall on a chain that changes forks', () => {
  // PUSH2 0x0100, BALANCE, POP, STOP: 100 gas for BALANCE of a warm address, 2600 of a cold one.
  const readsP256 = '0x6101003150' as Hex

  test('the precompiles warm in a call are those of its own fork', async () => {
    const gasIn = async (timestamp: bigint) => {
      const view: ExecutionView = { env: { ...env, timestamp }, state: stateWith(readsP256) }
      const request = { from: sender, to: target }
      const simulated = answer(await forking.call(request, 100_000n, view), sender)
      expect(simulated).toEqual(answer((await forking.execute(request, 100_000n, view)).outcome, sender))
      return simulated.kind === 'success' ? simulated.gasUsed : simulated
    }
    const [osaka, prague, osakaAgain] = [await gasIn(osakaTime), await gasIn(osakaTime - 1n), await gasIn(osakaTime + 12n)]
    expect(osaka).toBe(21_000n + 3n + 100n + 2n)
    expect(prague).toBe(21_000n + 3n + 2_600n + 2n)
    expect(osakaAgain).toBe(osaka)
  })
})

describe('simulateCall on the published @ethereumjs/evm, whose journal has no shared warm set', () => {
  // BALANCE(0x04), POP, STOP: 100 gas when the identity precompile is warm, 2600 when it is cold.
  const readsIdentity = '0x60043150' as Hex

  test('warms each precompile itself, and charges what runTx charges', async () => {
    const state = stateWith(readsIdentity)
    const vm = await createVM({ common: common.copy(), stateManager: new FlatStateManager(state) })
    expect(sharesWarmAddresses(vm.evm.journal)).toBe(!expectsPublishedBuild())
    delete (vm.evm.journal as { sharedWarmAddresses?: unknown }).sharedWarmAddresses
    expect(sharesWarmAddresses(vm.evm.journal)).toBe(false)

    const request = { from: sender, to: target }
    const { execResult, totalGasSpent } = await simulateCall(
      vm,
      createCallTransaction(request, 100_000n, vm.common),
      createEnvBlock(env, vm.common, 0n),
    )
    expect(execResult.exceptionError).toBeUndefined()
    const { outcome } = await executor.execute(request, 100_000n, { env, state })
    expect(outcome).toMatchObject({ kind: 'success', gasUsed: totalGasSpent })
    expect(totalGasSpent).toBe(21_000n + 3n + 100n + 2n)
  })
})
