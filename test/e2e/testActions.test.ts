// Every test action viem has (viem/actions/test), called by viem's test client in both of its modes against the
// real server, each checked through public methods. The methods' finer semantics have suites of their own
// (stateEdits, snapshots, impersonation, blockSettings, time, mineBlocks, autoMining, txpool).
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

import { createTestClient, createWalletClient, http, parseEther, parseGwei } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { Refunder, Store } from './fixtures/contracts.ts'
import { deploy, startChain, word } from './helpers.ts'

import type { Hex, TestClient } from 'viem'
import type { TestChain } from './helpers.ts'

const modes = ['anvil', 'hardhat'] as const

/** The actions this suite calls; the first test checks it is every one viem ships. */
const covered = [
  'dropTransaction',
  'dumpState',
  'getAutomine',
  'getTxpoolContent',
  'getTxpoolStatus',
  'impersonateAccount',
  'increaseTime',
  'inspectTxpool',
  'loadState',
  'mine',
  'removeBlockTimestampInterval',
  'reset',
  'revert',
  'sendUnsignedTransaction',
  'setAutomine',
  'setBalance',
  'setBlockGasLimit',
  'setBlockTimestampInterval',
  'setCode',
  'setCoinbase',
  'setIntervalMining',
  'setLoggingEnabled',
  'setMinGasPrice',
  'setNextBlockBaseFeePerGas',
  'setNextBlockTimestamp',
  'setNonce',
  'setRpcUrl',
  'setStorageAt',
  'snapshot',
  'stopImpersonatingAccount',
]

it('covers every test action of the installed viem', () => {
  const folder = join(import.meta.dirname, '..', '..', 'node_modules', 'viem', 'actions', 'test')
  const actions = readdirSync(folder)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => file.slice(0, -3))
  expect(actions.sort()).toEqual([...covered].sort())
})

describe.each(modes)('viem test client, %s mode', (mode) => {
  let t: TestChain
  let test: TestClient<typeof mode>
  const lines: string[] = []
  const address = (n: number) => `0x${n.toString(16).padStart(40, mode === 'anvil' ? 'a' : 'b')}` as Hex

  beforeAll(async () => {
    t = await startChain({ log: (line) => lines.push(line) })
    test = createTestClient({ chain: t.chain, transport: http(t.url, { retryCount: 0 }), mode }) as TestClient<typeof mode>
  })

  afterAll(async () => {
    await t?.close()
  })

  it('setBalance, setNonce, setCode, setStorageAt', async () => {
    await test.setBalance({ address: address(1), value: parseEther('3') })
    await test.setNonce({ address: address(1), nonce: 9 })
    await test.setCode({ address: address(2), bytecode: '0x6000' })
    await test.setStorageAt({ address: address(2), index: 3, value: word(4n) })
    expect(await t.publicClient.getBalance({ address: address(1) })).toBe(parseEther('3'))
    expect(await t.publicClient.getTransactionCount({ address: address(1) })).toBe(9)
    expect(await t.publicClient.getCode({ address: address(2) })).toBe('0x6000')
    expect(await t.publicClient.getStorageAt({ address: address(2), slot: '0x3' })).toBe(word(4n))
  })

  it('snapshot and revert', async () => {
    const id = await test.snapshot()
    await test.setBalance({ address: address(1), value: 1n })
    await test.mine({ blocks: 2 })
    await test.revert({ id })
    expect(await t.publicClient.getBalance({ address: address(1) })).toBe(parseEther('3'))
  })

  it('mine, increaseTime, setNextBlockTimestamp', async () => {
    const before = await t.blockNumber()
    await test.mine({ blocks: 3 })
    expect(await t.blockNumber()).toBe(before + 3n)
    const wall = BigInt(Math.floor(Date.now() / 1000))
    await test.increaseTime({ seconds: 1000 })
    await test.mine({ blocks: 1 })
    expect((await t.publicClient.getBlock()).timestamp >= wall + 1000n).toBe(true)
    const next = (await t.publicClient.getBlock()).timestamp + 77n
    await test.setNextBlockTimestamp({ timestamp: next })
    await test.mine({ blocks: 1 })
    expect((await t.publicClient.getBlock()).timestamp).toBe(next)
  })

  it('setBlockTimestampInterval, removeBlockTimestampInterval', async () => {
    await test.setBlockTimestampInterval({ interval: 30 })
    const start = (await t.publicClient.getBlock()).timestamp
    await test.mine({ blocks: 2 })
    expect((await t.publicClient.getBlock()).timestamp).toBe(start + 60n)
    await test.removeBlockTimestampInterval()
    expect(await t.rpc(`${mode}_removeBlockTimestampInterval`)).toBe(false)
  })

  it('setBlockGasLimit, setNextBlockBaseFeePerGas, setCoinbase, setMinGasPrice', async () => {
    await test.setBlockGasLimit({ gasLimit: 25_000_000n })
    await test.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('3') })
    await test.setCoinbase({ address: address(3) })
    await test.mine({ blocks: 1 })
    const block = await t.publicClient.getBlock()
    expect(block.gasLimit).toBe(25_000_000n)
    expect(block.baseFeePerGas).toBe(parseGwei('3'))
    expect(block.miner).toBe(address(3))
    // This chain has EIP-1559, where a minimum gas price means nothing: refused, as anvil refuses it.
    await expect(test.setMinGasPrice({ gasPrice: parseGwei('1') })).rejects.toThrow(/EIP-1559/)
  })

  it('setAutomine, getAutomine', async () => {
    expect(await test.getAutomine()).toBe(false)
    await test.setAutomine(true)
    expect(await test.getAutomine()).toBe(true)
    const hash = await t.wallet(0).sendTransaction({ to: address(4), value: 1n })
    expect((await t.publicClient.getTransactionReceipt({ hash })).status).toBe('success')
    await test.setAutomine(false)
    expect(await test.getAutomine()).toBe(false)
  })

  it('getTxpoolStatus, getTxpoolContent, inspectTxpool, dropTransaction', async () => {
    const hash = await t.wallet(1).sendTransaction({ to: address(5), value: 2n })
    expect(await test.getTxpoolStatus()).toEqual({ pending: 1, queued: 0 })
    const sender = t.accounts[1]!.address
    const content = await test.getTxpoolContent()
    expect(Object.values(content.pending[sender]!)[0]!.hash).toBe(hash)
    const inspected = await test.inspectTxpool()
    expect(Object.values(inspected.pending[sender]!)[0]).toMatch(/^0x[0-9a-fA-F]{40}: 2 wei/)
    await test.dropTransaction({ hash })
    expect(await test.getTxpoolStatus()).toEqual({ pending: 0, queued: 0 })
  })

  it('impersonateAccount, sendUnsignedTransaction, stopImpersonatingAccount', async () => {
    await test.setBalance({ address: address(6), value: parseEther('1') })
    await test.impersonateAccount({ address: address(6) })
    const hash = await test.sendUnsignedTransaction({ from: address(6), to: address(7), value: 5n })
    const wallet = createWalletClient({ chain: t.chain, transport: http(t.url, { retryCount: 0 }), account: address(6) })
    await wallet.sendTransaction({ to: address(7), value: 6n })
    await test.mine({ blocks: 1 })
    expect((await t.publicClient.getTransactionReceipt({ hash })).from).toBe(address(6))
    expect(await t.publicClient.getBalance({ address: address(7) })).toBe(11n)
    await test.stopImpersonatingAccount({ address: address(6) })
    await expect(test.sendUnsignedTransaction({ from: address(6), to: address(7), value: 1n })).rejects.toThrow()
  })

  it('dumpState and loadState round-trip the state', async () => {
    const { hash, address: store } = await deploy(t, Store, [123n])
    await test.mine({ blocks: 1 })
    expect((await t.publicClient.getTransactionReceipt({ hash })).status).toBe('success')
    const state = await test.dumpState()
    expect(state).toMatch(/^0x1f8b/)
    await test.setStorageAt({ address: store, index: 0, value: word(0n) })
    await test.setBalance({ address: address(1), value: 0n })
    await test.loadState({ state })
    expect(await t.publicClient.readContract({ address: store, abi: Store.abi, functionName: 'value' })).toBe(123n)
    expect(await t.publicClient.getBalance({ address: address(1) })).toBe(parseEther('3'))

    const fresh = await startChain()
    try {
      await createTestClient({ chain: fresh.chain, transport: http(fresh.url, { retryCount: 0 }), mode }).loadState({ state })
      expect(await fresh.publicClient.getCode({ address: store })).toBe(await t.publicClient.getCode({ address: store }))
      expect(await fresh.publicClient.readContract({ address: store, abi: Store.abi, functionName: 'value' })).toBe(123n)
      expect(await fresh.publicClient.getTransactionCount({ address: address(1) })).toBe(9)
    } finally {
      await fresh.close()
    }
  })

  it('setLoggingEnabled', async () => {
    await test.setLoggingEnabled(false)
    const quiet = lines.length
    await test.mine({ blocks: 2 })
    expect(lines.length).toBe(quiet)
    await test.setLoggingEnabled(true)
    await test.mine({ blocks: 1 })
    expect(lines.length).toBeGreaterThan(quiet)
  })

  it('setIntervalMining', async () => {
    const before = await t.blockNumber()
    await test.setIntervalMining({ interval: 1 })
    const deadline = Date.now() + 5_000
    while ((await t.blockNumber()) < before + 2n && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    await test.setIntervalMining({ interval: 0 })
    expect(await t.blockNumber()).toBeGreaterThanOrEqual(before + 2n)
  })

  it('setRpcUrl is refused: flashchain does not fork', async () => {
    await expect(test.setRpcUrl('http://127.0.0.1:1')).rejects.toThrow(/does not fork/)
  })

  it('reset goes back to block 0', async () => {
    await test.reset()
    expect(await t.blockNumber()).toBe(0n)
    expect(await t.publicClient.getBalance({ address: address(1) })).toBe(0n)
  })
})

describe('anvil_dealERC20', () => {
  let t: TestChain
  beforeAll(async () => {
    t = await startChain()
  })
  afterAll(async () => {
    await t?.close()
  })

  it("finds the balance slot by watching balanceOf's reads, and sets it at latest and pending", async () => {
    const { address: token } = await deploy(t, Refunder)
    await t.mine()
    const holder = `0x${'42'.repeat(20)}` as Hex
    expect(await t.rpc('anvil_dealERC20', [token, holder, '0x3e8'])).toBeNull()
    for (const blockTag of ['latest', 'pending'] as const) {
      expect(await t.publicClient.readContract({ address: token, abi: Refunder.abi, functionName: 'balanceOf', args: [holder], blockTag })).toBe(
        1000n,
      )
    }
    // The dev account that deployed it keeps its own balance.
    expect(await t.publicClient.readContract({ address: token, abi: Refunder.abi, functionName: 'balanceOf', args: [t.accounts[0]!.address] })).toBe(
      1000n,
    )
  })

  it('error: -32602 when no slot balanceOf reads holds the balance, or when it reads none', async () => {
    const holder = `0x${'42'.repeat(20)}` as Hex
    // SLOAD slot 0, drop it, return 1: the balance is not in what it reads.
    const constant = `0x${'77'.repeat(20)}` as Hex
    await t.testClient.setCode({ address: constant, bytecode: '0x60005450600160005260206000f3' })
    const unreadable = await t.rpcError('anvil_dealERC20', [constant, holder, '0x1'])
    expect(unreadable).toMatchObject({ code: -32602, message: expect.stringMatching(/none of the 1 storage slots/) })
    // Returns 1 without reading storage.
    const stateless = `0x${'78'.repeat(20)}` as Hex
    await t.testClient.setCode({ address: stateless, bytecode: '0x600160005260206000f3' })
    const none = await t.rpcError('anvil_dealERC20', [stateless, holder, '0x1'])
    expect(none).toMatchObject({ code: -32602, message: expect.stringMatching(/reads no storage/) })
  })
})
