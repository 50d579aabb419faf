import { describe, expect, test } from 'vitest'

import { GasAllowanceExceededError } from '../errors.ts'
import { gasUpperBound, isNarrowEnough, searchGas, updateBounds } from './estimate.ts'

import type { CallOutcome } from './executor.ts'

const base = {
  blockGasLimit: 30_000_000n,
  rpcGasCap: 50_000_000n,
  feeCap: 0n,
  balance: 0n,
  value: 0n,
  from: '0x0000000000000000000000000000000000000001',
}

describe('gasUpperBound', () => {
  test('default: the block gas limit', () => {
    expect(gasUpperBound(base)).toBe(30_000_000n)
  })
  test('args: gas below the block limit binds', () => {
    expect(gasUpperBound({ ...base, gas: 100_000n })).toBe(100_000n)
  })
  test('args: EIP-7825 caps a transaction at 2^24', () => {
    expect(gasUpperBound({ ...base, txGasCap: 2n ** 24n })).toBe(16_777_216n)
  })
  test('args: the RPC gas cap binds when lowest', () => {
    expect(gasUpperBound({ ...base, blockGasLimit: 100_000_000n, rpcGasCap: 40_000_000n })).toBe(40_000_000n)
  })
  test('args: a fee cap limits gas to what the balance left after value pays for', () => {
    expect(gasUpperBound({ ...base, feeCap: 10n, balance: 1_000_000n, value: 400_000n })).toBe(60_000n)
  })
  test('error: value above balance is insufficient funds, even when gas is free', () => {
    expect(() => gasUpperBound({ ...base, balance: 5n, value: 6n })).toThrow(
      expect.objectContaining({ reason: expect.objectContaining({ kind: 'insufficientFunds' }) }),
    )
  })
  test('error: value above balance is insufficient funds', () => {
    expect(() => gasUpperBound({ ...base, feeCap: 1n, balance: 5n, value: 6n })).toThrow(
      expect.objectContaining({
        reason: { kind: 'insufficientFunds', address: '0x0000000000000000000000000000000000000001', have: 5n, want: 6n },
      }),
    )
  })
})

describe('updateBounds', () => {
  const success: CallOutcome = { kind: 'success', returnValue: new Uint8Array(), gasUsed: 1n, gasConsumed: 1n }
  test('success lowers the ceiling', () => {
    expect(updateBounds({ lo: 10n, hi: 100n }, 50n, success)).toEqual({ lo: 10n, hi: 50n })
  })
  test('a failure raises the floor', () => {
    expect(updateBounds({ lo: 10n, hi: 100n }, 50n, { ...success, kind: 'halt', error: 'out of gas' })).toEqual({ lo: 50n, hi: 100n })
    expect(updateBounds({ lo: 10n, hi: 100n }, 50n, { kind: 'invalid', error: 'intrinsic' })).toEqual({ lo: 50n, hi: 100n })
  })
  test('the search stops within 1.5%', () => {
    expect(isNarrowEnough({ lo: 98_600n, hi: 100_000n })).toBe(true)
    expect(isNarrowEnough({ lo: 98_400n, hi: 100_000n })).toBe(false)
    expect(isNarrowEnough({ lo: 20n, hi: 21n })).toBe(true)
  })
})

/** A model transaction: it needs `needed` gas as a limit, consumes `consumed` and is refunded `refund`. */
function model(options: { needed: bigint; consumed: bigint; refund?: bigint; revertData?: Uint8Array }) {
  const tried: bigint[] = []
  const run = async (gas: bigint): Promise<CallOutcome> => {
    tried.push(gas)
    if (options.revertData !== undefined) {
      return { kind: 'revert', returnValue: options.revertData, gasUsed: options.consumed, gasConsumed: options.consumed }
    }
    if (gas < options.needed) return { kind: 'halt', error: 'out of gas', returnValue: new Uint8Array(), gasUsed: gas, gasConsumed: gas }
    return { kind: 'success', returnValue: new Uint8Array(), gasUsed: options.consumed - (options.refund ?? 0n), gasConsumed: options.consumed }
  }
  return { run, tried }
}

const search = { lowest: 21_000n, hi: 30_000_000n, isTransfer: false, from: base.from }

describe('searchGas', () => {
  test('a transfer takes one run', async () => {
    const { run, tried } = model({ needed: 21_000n, consumed: 21_000n })
    expect(await searchGas({ ...search, run, isTransfer: true })).toEqual({ gas: 21_000n, runs: 1 })
    expect(tried).toEqual([21_000n])
  })

  test('a run that proves the least limit it needs is answered after that one run', async () => {
    const { run: modelRun, tried } = model({ needed: 53_535n, consumed: 51_234n })
    const run = async (gas: bigint): Promise<CallOutcome> => {
      const outcome = await modelRun(gas)
      return outcome.kind === 'success' ? { ...outcome, sufficientGas: 53_535n } : outcome
    }
    expect(await searchGas({ ...search, run })).toEqual({ gas: 53_535n, runs: 1 })
    expect(tried).toEqual([30_000_000n])
  })

  test('a proven limit below the EIP-7623 floor is raised to the floor', async () => {
    const { run: modelRun } = model({ needed: 21_500n, consumed: 21_500n })
    const run = async (gas: bigint): Promise<CallOutcome> => ({ ...(await modelRun(gas)), sufficientGas: 21_500n }) as CallOutcome
    expect(await searchGas({ ...search, lowest: 25_000n, run })).toEqual({ gas: 25_000n, runs: 1 })
  })

  test('a run that cannot prove its limit takes two: the ceiling, then what it consumed', async () => {
    const { run, tried } = model({ needed: 51_234n, consumed: 51_234n, refund: 4_800n })
    expect(await searchGas({ ...search, run })).toEqual({ gas: 51_234n, runs: 2 })
    expect(tried).toEqual([30_000_000n, 51_234n])
  })

  test('a nested call that needs 1/64 more than it consumes is found, and the answer always succeeds', async () => {
    const { run } = model({ needed: 103_000n, consumed: 100_000n })
    const estimate = await searchGas({ ...search, run })
    expect(estimate.gas).toBeGreaterThanOrEqual(103_000n)
    expect((estimate.gas - 103_000n) * 1000n).toBeLessThan(estimate.gas * 15n)
    expect((await run(estimate.gas)).kind).toBe('success')
    expect(estimate.runs).toBeLessThanOrEqual(5)
  })

  test('error: a revert at the ceiling returns at once with its reason and data', async () => {
    const data = Uint8Array.from(
      Buffer.from(
        '08c379a0000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000046e6f706500000000000000000000000000000000000000000000000000000000',
        'hex',
      ),
    )
    const { run, tried } = model({ needed: 0n, consumed: 30_000n, revertData: data })
    await expect(searchGas({ ...search, run })).rejects.toMatchObject({
      reason: 'nope',
      data: `0x${Buffer.from(data).toString('hex')}`,
    })
    expect(tried).toHaveLength(1)
  })

  test('error: out of gas at the ceiling exceeds the allowance', async () => {
    const { run } = model({ needed: 200_000n, consumed: 200_000n })
    await expect(searchGas({ ...search, run, hi: 100_000n })).rejects.toThrow(new GasAllowanceExceededError(100_000n))
  })

  test('error: a ceiling below the intrinsic gas cannot succeed', async () => {
    const { run, tried } = model({ needed: 21_000n, consumed: 21_000n })
    await expect(searchGas({ ...search, run, hi: 20_000n })).rejects.toThrow(new GasAllowanceExceededError(20_000n))
    expect(tried).toEqual([])
  })
})
