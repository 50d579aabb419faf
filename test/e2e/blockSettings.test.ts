import { createTestClient, http, parseGwei } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startChain, toHex } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

type RpcBlock = { number: Hex; gasLimit: Hex; baseFeePerGas: Hex; miner: Hex; mixHash: Hex; timestamp: Hex }
const pending = () => t.rpc<RpcBlock>('eth_getBlockByNumber', ['pending', false])
const latest = () => t.publicClient.getBlock()

/** Polls until `check` holds, at most `ms`: a bound for a loaded machine, not a measure of speed. */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return false
}

describe('evm_setBlockGasLimit', () => {
  it('every block from the next one takes it; a transaction above it is refused', async () => {
    await t.testClient.setBlockGasLimit({ gasLimit: 20_000_000n })
    expect(BigInt((await pending()).gasLimit)).toBe(20_000_000n)
    await t.mine()
    await t.mine()
    expect((await latest()).gasLimit).toBe(20_000_000n)
    const error = await t.rpcError('eth_sendTransaction', [{ from: t.accounts[0]!.address, to: t.accounts[1]!.address, gas: toHex(25_000_000n) }])
    expect(error.message).toMatch(/exceeds block gas limit/)
    expect((await t.rpcError('evm_setBlockGasLimit', ['0x0'])).code).toBe(-32602)
    await t.rpc('evm_setBlockGasLimit', [toHex(30_000_000n)])
  })
})

describe('setNextBlockBaseFeePerGas', () => {
  it('the next block has that base fee; the one after derives its own from it', async () => {
    await t.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('7') })
    expect(BigInt((await pending()).baseFeePerGas)).toBe(parseGwei('7'))
    await t.mine()
    expect((await latest()).baseFeePerGas).toBe(parseGwei('7'))
    await t.mine()
    // An empty block lowers the base fee by an eighth (EIP-1559).
    expect((await latest()).baseFeePerGas).toBe((parseGwei('7') * 7n) / 8n)
  })
})

describe('setCoinbase, hardhat_setPrevRandao', () => {
  it('blocks are mined for the coinbase set, which earns the tips; the next block has the prevRandao set', async () => {
    const coinbase = `0x${'c0'.repeat(20)}` as Hex
    await t.testClient.setCoinbase({ address: coinbase })
    const randao = `0x${'ab'.repeat(32)}` as Hex
    expect(await t.rpc('hardhat_setPrevRandao', [randao])).toBe(true)
    expect((await pending()).miner).toBe(coinbase)
    await t.wallet(1).sendTransaction({ to: t.accounts[2]!.address, value: 1n, maxPriorityFeePerGas: parseGwei('1') })
    await t.mine()
    const block = await latest()
    expect(block.miner).toBe(coinbase)
    expect(block.mixHash).toBe(randao)
    expect(await t.publicClient.getBalance({ address: coinbase })).toBe(21_000n * parseGwei('1'))
    await t.mine()
    expect((await latest()).mixHash).not.toBe(randao)
  })
})

describe('anvil_setMinGasPrice', () => {
  it('error: refused while EIP-1559 is active, as anvil refuses it', async () => {
    const error = await t.rpcError('anvil_setMinGasPrice', [toHex(parseGwei('1'))])
    expect(error.code).toBe(-32602)
    expect(error.message).toMatch(/EIP-1559/)
  })
})

describe('setBlockTimestampInterval, removeBlockTimestampInterval', () => {
  it('stamps each block the interval after the one before, until removed', async () => {
    await t.testClient.setBlockTimestampInterval({ interval: 100 })
    const start = (await latest()).timestamp
    expect(BigInt((await pending()).timestamp)).toBe(start + 100n)
    await t.mine()
    await t.mine()
    expect((await latest()).timestamp).toBe(start + 200n)
    await t.testClient.removeBlockTimestampInterval()
    expect(await t.rpc('anvil_removeBlockTimestampInterval')).toBe(false)
    await t.mine()
    const after = (await latest()).timestamp
    expect(after > start + 200n && after < start + 210n).toBe(true)
  })
})

describe('setIntervalMining', () => {
  it('anvil_: seconds; evm_: seconds under the flashblock interval (anvil), else milliseconds (Hardhat); 0 stops', async () => {
    const chain = await startChain()
    try {
      await chain.testClient.setIntervalMining({ interval: 1 })
      expect(await eventually(async () => (await chain.blockNumber()) >= 2n, 20_000)).toBe(true)
      await chain.rpc('anvil_setIntervalMining', [0])
      const stopped = await chain.blockNumber()
      await new Promise((resolve) => setTimeout(resolve, 1_300))
      expect(await chain.blockNumber()).toBe(stopped)

      const hardhat = createTestClient({ chain: chain.chain, transport: http(chain.url, { retryCount: 0 }), mode: 'hardhat' })
      await hardhat.setIntervalMining({ interval: 1 })
      expect(await eventually(async () => (await chain.blockNumber()) >= stopped + 2n, 20_000)).toBe(true)
      expect(await chain.rpc('evm_setIntervalMining', [0])).toBe(true)
      expect(await chain.rpc('hardhat_getAutomine')).toBe(false)

      // viem's anvil mode sends seconds under the same name.
      await chain.testClient.setIntervalMining({ interval: 1 })
      expect(await eventually(async () => (await chain.blockNumber()) >= stopped + 4n, 20_000)).toBe(true)
      await chain.rpc('evm_setIntervalMining', [0])

      const error = await chain.rpcError('anvil_setIntervalMining', [-1])
      expect(error.code).toBe(-32602)
    } finally {
      await chain.close()
    }
  })
})

describe('error: intervals that cannot be', () => {
  it('a block time shorter than the flashblock interval is -32602; so is a Hardhat timestamp interval not in whole seconds', async () => {
    const chain = await startChain({ flashblockInterval: 2000, blockTime: 4000 })
    try {
      const short = await chain.rpcError('anvil_setIntervalMining', [1])
      expect(short).toMatchObject({ code: -32602, message: expect.stringMatching(/1000 ms is shorter than the flashblock interval, 2000 ms/) })
      expect(await chain.rpc('hardhat_getAutomine')).toBe(false)
      expect((await chain.rpcError('hardhat_setBlockTimestampInterval', [1500])).code).toBe(-32602)
      expect((await chain.rpcError('anvil_setBlockTimestampInterval', [0])).code).toBe(-32602)
    } finally {
      await chain.close()
    }
  })
})
