// Every test action viem has (viem/actions/test), called by viem's test client in both of its modes against the
// real server, each checked through public methods. The methods' finer semantics have suites of their own
// (stateEdits, snapshots, impersonation, blockSettings, time, mineBlocks, autoMining, txpool).
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { createGzip, gzipSync } from 'node:zlib'

import { createTestClient, createWalletClient, http, parseEther, parseGwei } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { Allowances, Refunder, Store } from './fixtures/contracts.ts'
import { deploy, startChain, toHex, word } from './helpers.ts'
import { connect, wsUrl } from './wsHelpers.ts'

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
    // A block with a transaction: an empty one's line waits for the end of its run of empty blocks.
    await t.rpc('eth_sendTransaction', [{ from: t.accounts[0]!.address, to: t.accounts[1]!.address, value: '0x1' }])
    await test.mine({ blocks: 1 })
    expect(lines.length).toBeGreaterThan(quiet)
  })

  it('setIntervalMining', async () => {
    const before = await t.blockNumber()
    await test.setIntervalMining({ interval: 1 })
    // Bounded well past the two seconds two blocks take, for a loaded machine.
    const deadline = Date.now() + 20_000
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

describe('anvil_dealERC20, anvil_setERC20Allowance', () => {
  let t: TestChain
  beforeAll(async () => {
    t = await startChain()
  })
  afterAll(async () => {
    await t?.close()
  })

  const balanceOf = (token: Hex, holder: Hex, blockTag: 'latest' | 'pending' = 'latest') =>
    t.publicClient.readContract({ address: token, abi: Refunder.abi, functionName: 'balanceOf', args: [holder], blockTag })

  it("takes anvil's [account, token, amount], finds the balance slot by watching balanceOf's reads, and sets it at latest and pending", async () => {
    const { address: token } = await deploy(t, Refunder)
    await t.mine()
    const holder = `0x${'42'.repeat(20)}` as Hex
    expect(await t.rpc('anvil_dealERC20', [holder, token, '0x3e8'])).toBeNull()
    expect(await balanceOf(token, holder, 'latest')).toBe(1000n)
    expect(await balanceOf(token, holder, 'pending')).toBe(1000n)
    // The dev account that deployed it keeps its own balance.
    expect(await balanceOf(token, t.accounts[0]!.address)).toBe(1000n)
    // anvil's aliases: anvil_setERC20Balance and hardhat_dealERC20, both answering null as anvil does.
    expect(await t.rpc('anvil_setERC20Balance', [holder, token, '0x7'])).toBeNull()
    expect(await balanceOf(token, holder)).toBe(7n)
    expect(await t.rpc('hardhat_dealERC20', [holder, token, '0x8'])).toBeNull()
    expect(await balanceOf(token, holder)).toBe(8n)
  })

  it('setERC20Allowance takes [owner, spender, token, amount] and sets what allowance(owner, spender) answers', async () => {
    const { address: token } = await deploy(t, Allowances)
    await t.mine()
    const owner = t.accounts[1]!.address
    const spender = `0x${'43'.repeat(20)}` as Hex
    const allowance = (from: Hex, to: Hex, blockTag: 'latest' | 'pending' = 'latest') =>
      t.publicClient.readContract({ address: token, abi: Allowances.abi, functionName: 'allowance', args: [from, to], blockTag })
    expect(await t.rpc('anvil_setERC20Allowance', [owner, spender, token, toHex(2n ** 256n - 1n)])).toBeNull()
    expect(await allowance(owner, spender, 'latest')).toBe(2n ** 256n - 1n)
    expect(await allowance(owner, spender, 'pending')).toBe(2n ** 256n - 1n)
    // Only that pair's slot changed.
    expect(await allowance(spender, owner)).toBe(0n)
    expect(await allowance(owner, t.accounts[2]!.address)).toBe(0n)
    // The spender can spend it: an approve by the owner later replaces it, as a real approval would.
    await t.wallet(1).writeContract({ address: token, abi: Allowances.abi, functionName: 'approve', args: [spender, 5n] })
    await t.mine()
    expect(await allowance(owner, spender)).toBe(5n)
  })

  it('error: -32602 when no slot the getter reads holds the value, or when it reads none', async () => {
    const holder = `0x${'42'.repeat(20)}` as Hex
    // SLOAD slot 0, drop it, return 1: the balance is not in what it reads.
    const constant = `0x${'77'.repeat(20)}` as Hex
    await t.testClient.setCode({ address: constant, bytecode: '0x60005450600160005260206000f3' })
    expect(await t.rpcError('anvil_dealERC20', [holder, constant, '0x1'])).toEqual({
      code: -32602,
      message: `none of the 1 storage slots ${constant}'s balanceOf reads holds the balance whole`,
    })
    expect(await t.rpcError('anvil_setERC20Allowance', [holder, holder, constant, '0x1'])).toEqual({
      code: -32602,
      message: `none of the 1 storage slots ${constant}'s allowance reads holds the allowance whole`,
    })
    // Returns 1 without reading storage.
    const stateless = `0x${'78'.repeat(20)}` as Hex
    await t.testClient.setCode({ address: stateless, bytecode: '0x600160005260206000f3' })
    expect(await t.rpcError('anvil_dealERC20', [holder, stateless, '0x1'])).toEqual({
      code: -32602,
      message: `${stateless}'s balanceOf reads no storage: it is not an ERC20 whose balance this can set`,
    })
    expect((await t.rpcError('anvil_setERC20Allowance', [holder, holder, stateless])).code).toBe(-32602)
  })
})

describe('anvil_loadState refusals', () => {
  let t: TestChain
  const account = `0x${'5a'.repeat(20)}` as Hex

  beforeAll(async () => {
    t = await startChain()
  })

  afterAll(async () => {
    await t?.close()
  })

  const hexOf = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}` as Hex
  const dumpOf = (json: string) => hexOf(gzipSync(json))

  it.each(['__proto__', 'constructor', '0x1234', `0x${'5a'.repeat(21)}`])('an account keyed %s is -32602, and nothing loads', async (key) => {
    const json = `{"accounts":{"${account}":{"nonce":"0x7","balance":"0x9"},"${key}":{"nonce":"0x1","balance":"0x2"}}}`
    for (const method of ['anvil_loadState', 'hardhat_loadState']) {
      expect(await t.rpcError(method, [dumpOf(json)])).toEqual({
        code: -32602,
        message: `not a state dump: accounts: ${JSON.stringify(key)} is not an address, want 20 bytes of hex`,
      })
    }
    expect(await t.publicClient.getBalance({ address: account })).toBe(0n)
  })

  it('a storage slot keyed __proto__ is -32602', async () => {
    const json = `{"accounts":{"${account}":{"nonce":"0x1","balance":"0x1","storage":{"__proto__":"0x1"}}}}`
    expect(await t.rpcError('anvil_loadState', [hexOf(Buffer.from(json))])).toEqual({
      code: -32602,
      message: `not a state dump: accounts.${account}.storage: "__proto__" is not a storage slot`,
    })
  })

  it('a gzip bomb is refused once it inflates past the limit, and the node answers others meanwhile', async () => {
    // 512 MiB of zeros, a megabyte at a time: half a megabyte compressed, and never whole in this process either.
    const gzip = createGzip({ level: 9 })
    const chunks: Buffer[] = []
    gzip.on('data', (chunk: Buffer) => chunks.push(chunk))
    const zeros = Buffer.alloc(1024 * 1024)
    for (let i = 0; i < 512; i++) gzip.write(zeros)
    await new Promise((resolve) => gzip.end(resolve))
    const bomb = hexOf(Buffer.concat(chunks))

    // One connection: the server reads the bomb before the eth_chainId sent after it. A node that inflated on the
    // event loop would answer the bomb first.
    const client = await connect(wsUrl(t.url))
    try {
      const order: string[] = []
      const refused = client.request('anvil_loadState', [bomb]).then((response) => {
        order.push('anvil_loadState')
        return response
      })
      await new Promise((resolve) => setTimeout(resolve, 0))
      const chainId = client.request('eth_chainId').then((response) => {
        order.push('eth_chainId')
        return response
      })
      expect((await chainId).result).toBe('0x7a69')
      expect((await refused).error).toEqual({
        code: -32602,
        message: `not a state dump: it inflates past ${32 * 1024 * 1024} bytes, the largest state anvil_loadState takes`,
      })
      expect(order).toEqual(['eth_chainId', 'anvil_loadState'])
    } finally {
      await client.close()
    }
  })
})
