import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createPublicClient, createTestClient, http, webSocket } from 'viem'

import { startChain, toHex } from './helpers.ts'
import { wsUrl } from './wsHelpers.ts'

import type { TestChain } from './helpers.ts'

let t: TestChain

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

const timestampOf = async (blockNumber: bigint) => (await t.publicClient.getBlock({ blockNumber })).timestamp

describe('anvil_mine, hardhat_mine', () => {
  it('anvil mode: mines the blocks asked for, each `interval` seconds after the one before, the first included', async () => {
    // anvil moves its clock by `interval` before each block. A block stamped ahead of the clock moves the clock to it,
    // and the clock goes on from there with wall time: the first block is `interval` seconds after the head, plus the
    // whole seconds that passed since the head was sealed, which are at most those measured around it.
    const started = Date.now()
    const base = (await timestampOf(await t.blockNumber())) + 1_000n
    await t.rpc('evm_mine', [toHex(base)])
    const head = await t.blockNumber()
    const hash = await t.wallet(1).sendTransaction({ to: '0x00000000000000000000000000000000000b0b0b', value: 1n })
    await t.testClient.mine({ blocks: 5, interval: 10 })
    const elapsed = BigInt(Math.floor((Date.now() - started) / 1000))
    expect(await t.blockNumber()).toBe(head + 5n)
    expect((await t.publicClient.getTransactionReceipt({ hash })).blockNumber).toBe(head + 1n)
    const timestamps = await Promise.all([1n, 2n, 3n, 4n, 5n].map((offset) => timestampOf(head + offset)))
    const late = timestamps[0]! - (base + 10n)
    expect(late >= 0n && late <= elapsed).toBe(true)
    expect(timestamps).toEqual([10n, 20n, 30n, 40n, 50n].map((offset) => base + late + offset))
  })

  it('hardhat mode: with an interval, the first block follows the clock and each after it is `interval` seconds later', async () => {
    const head = await t.blockNumber()
    expect(await t.rpc('hardhat_mine', [toHex(3), toHex(10)])).toBe(true)
    expect(await timestampOf(head + 1n)).toBeGreaterThan(await timestampOf(head))
    expect((await timestampOf(head + 2n)) - (await timestampOf(head + 1n))).toBe(10n)
    expect((await timestampOf(head + 3n)) - (await timestampOf(head + 2n))).toBe(10n)
  })

  it('takes JSON integers and hex with leading zeros for the count and the interval, as anvil does', async () => {
    const head = await t.blockNumber()
    expect(await t.rpc('anvil_mine', [2, '0x03'])).toBeNull()
    expect(await t.blockNumber()).toBe(head + 2n)
    expect((await timestampOf(head + 2n)) - (await timestampOf(head + 1n))).toBe(3n)
  })

  it('hardhat mode: without an interval, blocks follow the clock and their timestamps still rise', async () => {
    const hardhat = createTestClient({ chain: t.chain, transport: http(t.url, { retryCount: 0 }), mode: 'hardhat' })
    const head = await t.blockNumber()
    await hardhat.mine({ blocks: 3 })
    expect(await t.blockNumber()).toBe(head + 3n)
    for (let number = head + 1n; number <= head + 3n; number++) expect(await timestampOf(number)).toBeGreaterThan(await timestampOf(number - 1n))
    expect(await t.rpc('hardhat_mine', [])).toBe(true)
    expect(await t.rpc('anvil_mine', [])).toBeNull()
    expect(await t.blockNumber()).toBe(head + 5n)
  })

  it('10,000 blocks in one call, other clients answered meanwhile, and the blocks and state before them still read', async () => {
    const head = await t.blockNumber()
    const recipient = '0x00000000000000000000000000000000000c0c0c'
    const hash = await t.wallet(2).sendTransaction({ to: recipient, value: 7n })
    let done = false
    const mined = t.rpc('anvil_mine', [toHex(10_000)]).finally(() => {
      done = true
    })
    // Another client, on its own connection, reads the head while the blocks are sealed, until it has seen one of
    // them: reading on would only take turns from the sealing.
    const seen: bigint[] = []
    const between = (number: bigint) => number > head && number < head + 10_000n
    const other = createPublicClient({ chain: t.chain, transport: webSocket(wsUrl(t.url), { retryCount: 0 }) })
    try {
      while (!done && !seen.some(between)) seen.push(await other.getBlockNumber({ cacheTime: 0 }))
    } finally {
      await (await other.transport.getRpcClient()).close()
    }
    await mined
    expect(seen.some(between)).toBe(true)
    expect(await t.blockNumber()).toBe(head + 10_000n)
    const receipt = await t.publicClient.getTransactionReceipt({ hash })
    expect(receipt.blockNumber).toBe(head + 1n)
    expect((await t.publicClient.getBlock({ blockNumber: head + 1n })).transactions).toEqual([hash])
    expect(await t.publicClient.getBalance({ address: recipient, blockNumber: head })).toBe(0n)
    expect(await t.publicClient.getBalance({ address: recipient, blockNumber: head + 1n })).toBe(7n)
    expect(await t.publicClient.getBalance({ address: recipient })).toBe(7n)
    // The timeout guards against a call that never ends; it is no measure of speed (bench/ measures the rate), so it
    // leaves a loaded machine many times the time a quiet one takes.
  }, 600_000)

  it('error: a count or interval that is not a quantity, or more blocks than one call may mine, is -32602', async () => {
    expect(await t.rpcError('anvil_mine', ['0x1', 'soon'])).toEqual({ code: -32602, message: 'invalid argument 1: hex string without 0x prefix' })
    expect(await t.rpcError('hardhat_mine', [-5])).toEqual({
      code: -32602,
      message: 'invalid argument 0: invalid quantity, want a non-negative integer',
    })
  })

  it('error: a million blocks, or one more than a call may mine, is refused at once with -32602 naming the limit', async () => {
    const head = await t.blockNumber()
    for (const [method, count] of [
      ['anvil_mine', 1_000_000],
      ['hardhat_mine', 10_001],
    ] as const) {
      expect(await t.rpcError(method, [toHex(count)])).toEqual({
        code: -32602,
        message: 'invalid argument 0: at most 10000 blocks per call; call again for more',
      })
    }
    expect(await t.blockNumber()).toBe(head)
  })

  it('args: a count of 0 mines nothing and answers as usual', async () => {
    const head = await t.blockNumber()
    expect(await t.rpc('anvil_mine', ['0x0'])).toBeNull()
    expect(await t.rpc('hardhat_mine', ['0x0'])).toBe(true)
    expect(await t.blockNumber()).toBe(head)
  })

  it('args: --max-mine-blocks moves the limit', async () => {
    const small = await startChain({ maxMineBlocks: 3 })
    try {
      expect(await small.rpcError('anvil_mine', ['0x4'])).toEqual({
        code: -32602,
        message: 'invalid argument 0: at most 3 blocks per call; call again for more',
      })
      const head = await small.blockNumber()
      await small.rpc('hardhat_mine', ['0x3'])
      expect(await small.blockNumber()).toBe(head + 3n)
    } finally {
      await small.close()
    }
  })

  it('blocks mined in one call are the blocks evm_mine seals one at a time', async () => {
    const id = await t.testClient.snapshot()
    const start = (await timestampOf(await t.blockNumber())) + 100n
    const head = await t.blockNumber()
    for (let i = 0n; i < 5n; i++) await t.rpc('evm_mine', [toHex(start + 10n * i)])
    const oneByOne = await Promise.all(
      [1n, 2n, 3n, 4n, 5n].map(async (offset) => (await t.publicClient.getBlock({ blockNumber: head + offset })).hash),
    )
    await t.testClient.revert({ id })
    await t.rpc('evm_setNextBlockTimestamp', [toHex(start)])
    expect(await t.rpc('hardhat_mine', [toHex(5), toHex(10)])).toBe(true)
    const inOneCall = await Promise.all(
      [1n, 2n, 3n, 4n, 5n].map(async (offset) => (await t.publicClient.getBlock({ blockNumber: head + offset })).hash),
    )
    expect(inOneCall).toEqual(oneByOne)
  })
})
