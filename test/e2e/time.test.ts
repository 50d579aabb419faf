import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startChain, toHex } from './helpers.ts'

import type { TestChain } from './helpers.ts'

let t: TestChain

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

const latest = async () => (await t.publicClient.getBlock()).timestamp
const pendingTimestamp = async () => BigInt((await t.rpc<{ timestamp: string }>('eth_getBlockByNumber', ['pending', false])).timestamp)
const wallSeconds = () => BigInt(Math.floor(Date.now() / 1000))

describe('evm_increaseTime', () => {
  it('moves the clock forward for every block after it, and answers the total offset', async () => {
    await t.testClient.increaseTime({ seconds: 3600 })
    await t.mine()
    const first = await latest()
    expect(first >= wallSeconds() + 3595n && first <= wallSeconds() + 3605n).toBe(true)
    expect(await t.rpc<number>('evm_increaseTime', [toHex(60)])).toBeGreaterThanOrEqual(3659)
    await t.mine()
    expect((await latest()) >= first + 60n).toBe(true)
  })
})

describe('evm_increaseTime after blocks stamped ahead of the clock', () => {
  it('pending and the next block are the seconds added after the latest block, not after the clock that fell behind it', async () => {
    // Blocks mined while the clock is behind each take their parent's timestamp plus one, ahead of the clock, and
    // the clock goes on from each. It can pass the latest block only by the whole seconds since the first of them,
    // at most those measured around the run: none on a quiet machine, where the answers are exact.
    const started = Date.now()
    const base = (await latest()) + 1_000n
    await t.rpc('evm_mine', [toHex(base)])
    await t.mine()
    await t.mine()
    const head = await latest()
    await t.testClient.increaseTime({ seconds: 7200 })
    const pending = await pendingTimestamp()
    await t.mine()
    const mined = await latest()
    const seconds = BigInt(Math.floor((Date.now() - started) / 1000))
    expect(head >= base + 2n && head <= base + 2n + seconds).toBe(true)
    expect(pending - 7200n >= head && pending - 7200n <= head + seconds).toBe(true)
    expect(mined >= pending && mined <= pending + seconds).toBe(true)
  })
})

describe('evm_setNextBlockTimestamp, anvil_setNextBlockTimestamp', () => {
  it('gives the next block the timestamp, shows it at pending, and the blocks after go on from it', async () => {
    const target = (await latest()) + 100_000n
    await t.testClient.setNextBlockTimestamp({ timestamp: target })
    expect(await pendingTimestamp()).toBe(target)
    const hash = await t.wallet(1).sendTransaction({ to: '0x00000000000000000000000000000000000b0b0b', value: 1n })
    await t.mine()
    const receipt = await t.publicClient.getTransactionReceipt({ hash })
    expect((await t.publicClient.getBlock({ blockNumber: receipt.blockNumber })).timestamp).toBe(target)
    await t.mine()
    const after = await latest()
    expect(after > target && after <= target + 5n).toBe(true)
  })

  it('takes a number too, under both names, and evm_mine with a timestamp moves the clock the same way', async () => {
    const target = (await latest()) + 500n
    expect(await t.rpc('anvil_setNextBlockTimestamp', [Number(target)])).toBeNull()
    await t.mine()
    expect(await latest()).toBe(target)
    await t.rpc('evm_mine', [toHex(target + 1_000n)])
    await t.mine()
    const after = await latest()
    expect(after > target + 1_000n && after <= target + 1_005n).toBe(true)
  })

  it('error: a timestamp not after the latest block is -32602, and changes nothing', async () => {
    const head = await latest()
    const error = await t.rpcError('evm_setNextBlockTimestamp', [toHex(head)])
    expect(error).toEqual({ code: -32602, message: `timestamp ${head} is not after the latest block's, ${head}` })
    expect(await t.rpcError('evm_increaseTime', ['soon'])).toMatchObject({ code: -32602 })
    await t.mine()
    expect((await latest()) > head).toBe(true)
  })
})

describe("the test-control setters are the owner's", () => {
  it('error: a caller from a web page (with an Origin) gets 4100 from each, and nothing changes', async () => {
    const head = await t.blockNumber()
    const refusedTimestamp = (await latest()) + 1_000n
    const calls: [string, unknown[]][] = [
      ['evm_setAutomine', [true]],
      ['anvil_setAutomine', [true]],
      ['anvil_mine', ['0x2']],
      ['hardhat_mine', ['0x2']],
      ['evm_increaseTime', ['0x3c']],
      ['evm_setNextBlockTimestamp', [toHex(refusedTimestamp)]],
      ['anvil_dropAllTransactions', []],
      ['hardhat_dropTransaction', [`0x${'11'.repeat(32)}`]],
    ]
    for (const [method, params] of calls) {
      const response = await fetch(t.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: 'http://dapp.example' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      })
      const body = (await response.json()) as { error?: { code: number; message: string } }
      expect([method, body.error?.code, body.error?.message]).toEqual([method, 4100, expect.stringContaining('admin methods are for the owner only')])
    }
    expect([await t.blockNumber(), await t.testClient.getAutomine()]).toEqual([head, false])
    // The refused evm_setNextBlockTimestamp set nothing: the next block keeps to the clock.
    await t.mine()
    expect((await latest()) < refusedTimestamp).toBe(true)
  })
})
