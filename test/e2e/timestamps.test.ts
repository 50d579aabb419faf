import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { MAX_TIMESTAMP } from '../../src/chain/production/clock.ts'
import { startChain, toHex } from './helpers.ts'

import type { TestChain } from './helpers.ts'

let t: TestChain

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

/** Values that cannot be a header's timestamp here: past 2^53 ms, up to 2^256 - 1. */
const huge = [
  '0x7fffffffffffffff',
  '0xffffffffffffffff',
  '0xfffffffffffffffe',
  '0x10000000000000000',
  `0x${'ff'.repeat(32)}`,
  toHex(MAX_TIMESTAMP + 1n),
]

/** The chain still seals, calls at pending, and takes a transaction. */
async function stillWorks(chain: TestChain) {
  const head = await chain.blockNumber()
  await chain.mine()
  expect(await chain.blockNumber()).toBe(head + 1n)
  expect(await chain.rpc('eth_call', [{ to: chain.accounts[1]!.address }, 'pending'])).toBe('0x')
  const hash = await chain.wallet(0).sendTransaction({ to: chain.accounts[1]!.address, value: 1n })
  await chain.mine()
  expect((await chain.publicClient.getTransactionReceipt({ hash })).status).toBe('success')
}

describe('a timestamp that cannot be a header', () => {
  it.each(huge)('%s is -32602 for evm_mine, the next-block timestamp, the clock, and intervals; the chain keeps working', async (value) => {
    const calls: [string, unknown[]][] = [
      ['evm_mine', [value]],
      ['evm_setNextBlockTimestamp', [value]],
      ['anvil_setNextBlockTimestamp', [value]],
      ['evm_increaseTime', [value]],
      ['anvil_mine', ['0x2', value]],
      ['anvil_setBlockTimestampInterval', [value]],
    ]
    for (const [method, params] of calls) {
      const error = await t.rpcError(method, params)
      expect({ method, code: error.code }).toEqual({ method, code: -32602 })
      await stillWorks(t)
    }
  })

  it('error: evm_mine at or before the latest timestamp is -32602, as Hardhat answers', async () => {
    const latest = (await t.publicClient.getBlock()).timestamp
    expect((await t.rpcError('evm_mine', [toHex(latest)])).code).toBe(-32602)
    await stillWorks(t)
  })

  it('the latest timestamp allowed is taken, and blocks go on after it', async () => {
    const chain = await startChain()
    try {
      await chain.rpc('evm_mine', [toHex(MAX_TIMESTAMP)])
      expect((await chain.publicClient.getBlock()).timestamp).toBe(MAX_TIMESTAMP)
      await stillWorks(chain)
      expect((await chain.publicClient.getBlock()).timestamp > MAX_TIMESTAMP).toBe(true)
    } finally {
      await chain.close()
    }
  })

  it('with --data-dir, a restart after refused timestamps finds a working chain', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'flashchain-timestamps-'))
    try {
      const first = await startChain({ dataDir, mining: 'interval', blockTime: 400, flashblockInterval: 200 })
      for (const value of huge) expect((await first.rpcError('evm_mine', [value])).code).toBe(-32602)
      await first.close()
      const second = await startChain({ dataDir })
      await stillWorks(second)
      await second.close()
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
