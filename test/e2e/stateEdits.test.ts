import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { createTestClient, http } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { Store } from './fixtures/contracts.ts'
import { deploy, startChain, toHex, word } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

const fresh = (n: number) => `0x${n.toString(16).padStart(40, 'e')}` as Hex
const balanceAt = (address: Hex, blockTag: 'latest' | 'pending') => t.publicClient.getBalance({ address, blockTag })
const nonceAt = (address: Hex, blockTag: 'latest' | 'pending') => t.publicClient.getTransactionCount({ address, blockTag })

describe('setBalance, addBalance, setNonce', () => {
  it('anvil mode: visible at latest and pending at once, without a block', async () => {
    const head = await t.blockNumber()
    const account = fresh(1)
    await t.testClient.setBalance({ address: account, value: 10n ** 21n })
    expect(await balanceAt(account, 'latest')).toBe(10n ** 21n)
    expect(await balanceAt(account, 'pending')).toBe(10n ** 21n)
    expect(await t.rpc('anvil_addBalance', [account, toHex(5n)])).toBeNull()
    expect(await balanceAt(account, 'latest')).toBe(10n ** 21n + 5n)
    await t.testClient.setNonce({ address: account, nonce: 7 })
    expect(await nonceAt(account, 'latest')).toBe(7)
    expect(await nonceAt(account, 'pending')).toBe(7)
    expect(await t.blockNumber()).toBe(head)
  })

  it('hardhat mode: the same methods under Hardhat names answer true', async () => {
    const hardhat = createTestClient({ chain: t.chain, transport: http(t.url, { retryCount: 0 }), mode: 'hardhat' })
    const account = fresh(2)
    await hardhat.setBalance({ address: account, value: 123n })
    await hardhat.setNonce({ address: account, nonce: 3 })
    expect(await balanceAt(account, 'latest')).toBe(123n)
    expect(await nonceAt(account, 'latest')).toBe(3)
    expect(await t.rpc('hardhat_setBalance', [account, toHex(9n)])).toBe(true)
    expect(await balanceAt(account, 'pending')).toBe(9n)
  })

  it('a pre-confirmed transaction keeps its effect at pending: the edit lands on top of it', async () => {
    const sender = t.accounts[3]!.address
    await t.wallet(3).sendTransaction({ to: fresh(3), value: 1n })
    await t.preconfirm()
    const pendingNonce = await nonceAt(sender, 'pending')
    // The sealed head's nonce, by number: latest's counts the pre-confirmed transaction (docs/chain.md).
    const head = await t.publicClient.getBlockNumber({ cacheTime: 0 })
    const sealedNonce = await t.publicClient.getTransactionCount({ address: sender, blockNumber: head })
    expect(pendingNonce).toBe(sealedNonce + 1)
    expect(await nonceAt(sender, 'latest')).toBe(pendingNonce)
    await t.testClient.setBalance({ address: sender, value: 5n * 10n ** 18n })
    expect(await balanceAt(sender, 'latest')).toBe(5n * 10n ** 18n)
    expect(await balanceAt(sender, 'pending')).toBe(5n * 10n ** 18n)
    expect(await nonceAt(sender, 'pending')).toBe(pendingNonce)
    await t.mine()
    expect(await balanceAt(sender, 'latest')).toBe(5n * 10n ** 18n)
    expect(await nonceAt(sender, 'latest')).toBe(pendingNonce)
  })

  it('addBalance while a block is being built adds once: at latest, at pending and in the block that seals', async () => {
    const recipient = fresh(8)
    const untouched = fresh(9)
    await t.wallet(5).sendTransaction({ to: recipient, value: 1n })
    await t.preconfirm()
    expect(await t.rpc('anvil_addBalance', [recipient, toHex(1000n)])).toBeNull()
    expect(await t.rpc('anvil_addBalance', [untouched, toHex(1000n)])).toBeNull()
    expect(await balanceAt(recipient, 'latest')).toBe(1000n)
    expect(await balanceAt(recipient, 'pending')).toBe(1001n)
    expect(await balanceAt(untouched, 'latest')).toBe(1000n)
    expect(await balanceAt(untouched, 'pending')).toBe(1000n)
    await t.mine()
    expect(await balanceAt(recipient, 'latest')).toBe(1001n)
    expect(await balanceAt(untouched, 'latest')).toBe(1000n)
  })

  it('a balance set funds the next transaction of an account that had nothing', async () => {
    const poor = t.accounts[4]!
    await t.testClient.setBalance({ address: poor.address, value: 0n })
    const error = await t.rpcError('eth_sendRawTransaction', [
      await poor.signTransaction({
        chainId: t.chain.id,
        to: fresh(4),
        value: 1n,
        gas: 21_000n,
        maxFeePerGas: 10n ** 10n,
        nonce: await nonceAt(poor.address, 'pending'),
      }),
    ])
    expect(error.message).toMatch(/insufficient funds/)
    await t.testClient.setBalance({ address: poor.address, value: 10n ** 18n })
    const hash = await t.wallet(4).sendTransaction({ to: fresh(4), value: 1n })
    await t.mine()
    expect((await t.publicClient.getTransactionReceipt({ hash })).status).toBe('success')
  })

  it('error: a bad address or amount is -32602, and nothing changes', async () => {
    expect((await t.rpcError('anvil_setBalance', ['0x1234', '0x1'])).code).toBe(-32602)
    expect((await t.rpcError('anvil_setBalance', [fresh(5), '1'])).code).toBe(-32602)
    expect((await t.rpcError('anvil_setNonce', [fresh(5), toHex(2n ** 64n)])).code).toBe(-32602)
    expect(await balanceAt(fresh(5), 'latest')).toBe(0n)
  })
})

describe('setCode, setStorageAt', () => {
  it('code and storage set are what calls and eth_getStorageAt see, at latest and pending', async () => {
    const { hash, address } = await deploy(t, Store, [42n])
    await t.mine()
    expect((await t.publicClient.getTransactionReceipt({ hash })).status).toBe('success')
    const code = await t.publicClient.getCode({ address })
    const copy = fresh(6)
    await t.testClient.setCode({ address: copy, bytecode: code! })
    expect(await t.publicClient.getCode({ address: copy })).toBe(code)
    expect(await t.publicClient.getCode({ address: copy, blockTag: 'pending' })).toBe(code)
    const read = (at: Hex, blockTag: 'latest' | 'pending') =>
      t.publicClient.readContract({ address: at, abi: Store.abi, functionName: 'value', blockTag })
    expect(await read(copy, 'latest')).toBe(0n)

    await t.testClient.setStorageAt({ address: copy, index: 0, value: word(77n) })
    expect(await t.publicClient.getStorageAt({ address: copy, slot: '0x0' })).toBe(word(77n))
    expect(await read(copy, 'latest')).toBe(77n)
    expect(await read(copy, 'pending')).toBe(77n)
    // The same call again, answered from the cache until an edit: the edit must not leave a stale answer.
    await t.testClient.setStorageAt({ address: copy, index: 0, value: word(78n) })
    expect(await read(copy, 'latest')).toBe(78n)

    await t.testClient.setCode({ address: copy, bytecode: '0x' })
    expect(await t.publicClient.getCode({ address: copy })).toBeUndefined()
    expect(await t.publicClient.getStorageAt({ address: copy, slot: '0x0' })).toBe(word(78n))
  })

  it('error: a value over 32 bytes is -32602', async () => {
    const error = await t.rpcError('anvil_setStorageAt', [fresh(7), '0x0', `0x${'11'.repeat(33)}`])
    expect(error.code).toBe(-32602)
  })
})

describe('the blocks after an edit', () => {
  it('seal state roots that a restart recomputes from the stored state', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'flashchain-edits-'))
    const lines: string[] = []
    try {
      const first = await startChain({ dataDir, log: (line) => lines.push(line) })
      await first.testClient.setBalance({ address: fresh(8), value: 1000n })
      await first.testClient.setStorageAt({ address: fresh(9), index: 5, value: word(3n) })
      await first.testClient.setCode({ address: fresh(9), bytecode: '0x6001' })
      await first.mine()
      await first.close()

      const second = await startChain({ dataDir, log: (line) => lines.push(line) })
      expect(await second.publicClient.getBalance({ address: fresh(8) })).toBe(1000n)
      expect(await second.publicClient.getStorageAt({ address: fresh(9), slot: '0x5' })).toBe(word(3n))
      expect(await second.publicClient.getCode({ address: fresh(9) })).toBe('0x6001')
      await second.close()
      expect(lines.filter((line) => line.includes('differs'))).toEqual([])
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('an edit with no block after it is kept by a restart too', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'flashchain-edits-'))
    try {
      const first = await startChain({ dataDir })
      await first.testClient.setBalance({ address: fresh(10), value: 31n })
      await first.close()
      const second = await startChain({ dataDir })
      expect(await second.publicClient.getBalance({ address: fresh(10) })).toBe(31n)
      await second.close()
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
