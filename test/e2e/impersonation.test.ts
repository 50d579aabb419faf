import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { createTestClient, createWalletClient, http, parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { Store } from './fixtures/contracts.ts'
import { deploy, startChain } from './helpers.ts'
import { CHAIN_ID, DAPP, callsStatus, sendCalls, sendCallsError, sendWith } from './walletHelpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

const whale = (n: number) => `0x${n.toString(16).padStart(40, '7')}` as Hex
const sink = (n: number) => `0x${n.toString(16).padStart(40, '5')}` as Hex
/** A wallet client for an address the server holds no key for: viem sends eth_sendTransaction. */
const walletOf = (chain: TestChain, address: Hex) =>
  createWalletClient({ chain: chain.chain, transport: http(chain.url, { retryCount: 0 }), account: address })

describe('anvil_impersonateAccount, anvil_stopImpersonatingAccount', () => {
  it('eth_sendTransaction from an impersonated account is accepted without a key, and runs as that account', async () => {
    const from = whale(1)
    await t.testClient.setBalance({ address: from, value: parseEther('10') })
    await t.testClient.impersonateAccount({ address: from })
    const hash = await walletOf(t, from).sendTransaction({ to: sink(1), value: parseEther('1') })
    await t.mine()
    const receipt = await t.publicClient.getTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(receipt.from).toBe(from)
    expect((await t.publicClient.getTransaction({ hash })).from).toBe(from)
    expect(await t.publicClient.getBalance({ address: sink(1) })).toBe(parseEther('1'))
    expect(await t.publicClient.getTransactionCount({ address: from })).toBe(1)
    expect(await t.rpc<Hex[]>('eth_accounts')).toContain(from)

    await t.testClient.stopImpersonatingAccount({ address: from })
    const error = await t.rpcError('eth_sendTransaction', [{ from, to: sink(1), value: '0x1' }])
    expect(error.code).toBe(4100)
    expect(await t.rpc<Hex[]>('eth_accounts')).not.toContain(from)
  })

  it('two impersonated accounts sending the same fields send different transactions', async () => {
    const [a, b] = [whale(2), whale(3)]
    for (const address of [a, b]) {
      await t.testClient.setBalance({ address, value: parseEther('1') })
      await t.testClient.impersonateAccount({ address })
    }
    const fields = { to: sink(2), value: 1n, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, nonce: 0 }
    const first = await walletOf(t, a).sendTransaction(fields)
    const second = await walletOf(t, b).sendTransaction(fields)
    expect(first).not.toBe(second)
    await t.mine()
    expect((await t.publicClient.getTransactionReceipt({ hash: second })).from).toBe(b)
  })

  it('hardhat mode, and anvil_autoImpersonateAccount for every address', async () => {
    const hardhat = createTestClient({ chain: t.chain, transport: http(t.url, { retryCount: 0 }), mode: 'hardhat' })
    await hardhat.setBalance({ address: whale(4), value: parseEther('1') })
    await hardhat.impersonateAccount({ address: whale(4) })
    await walletOf(t, whale(4)).sendTransaction({ to: sink(3), value: 1n })
    expect(await t.rpc('hardhat_stopImpersonatingAccount', [whale(4)])).toBe(true)

    await t.testClient.setBalance({ address: whale(5), value: parseEther('1') })
    expect((await t.rpcError('eth_sendTransaction', [{ from: whale(5), to: sink(3), value: '0x1' }])).code).toBe(4100)
    expect(await t.rpc('anvil_autoImpersonateAccount', [true])).toBeNull()
    await walletOf(t, whale(5)).sendTransaction({ to: sink(3), value: 2n })
    await t.rpc('anvil_autoImpersonateAccount', [false])
    expect((await t.rpcError('eth_sendTransaction', [{ from: whale(5), to: sink(3), value: '0x1' }])).code).toBe(4100)
    await t.mine()
    expect(await t.publicClient.getBalance({ address: sink(3) })).toBe(3n)
  })

  it('a contract can be impersonated: it sends as an account would, and keeps its code', async () => {
    const { address: contract } = await deploy(t, Store, [5n])
    const { address: target } = await deploy(t, Store, [6n])
    await t.mine()
    const code = await t.publicClient.getCode({ address: contract })
    await t.testClient.setBalance({ address: contract, value: parseEther('1') })
    await t.testClient.impersonateAccount({ address: contract })
    const hash = await walletOf(t, contract).writeContract({ address: target, abi: Store.abi, functionName: 'set', args: [77n] })
    const paid = await walletOf(t, contract).sendTransaction({ to: sink(8), value: 9n })
    await t.mine()
    for (const sent of [hash, paid]) expect((await t.publicClient.getTransactionReceipt({ hash: sent })).status).toBe('success')
    expect(await t.publicClient.readContract({ address: target, abi: Store.abi, functionName: 'value' })).toBe(77n)
    expect(await t.publicClient.getBalance({ address: sink(8) })).toBe(9n)
    expect(await t.publicClient.getCode({ address: contract })).toBe(code)
    expect(await t.publicClient.getTransactionCount({ address: contract })).toBe(3)
    expect(await t.publicClient.readContract({ address: contract, abi: Store.abi, functionName: 'value' })).toBe(5n)
  })

  it('error: a browser origin may not impersonate, nor send from an impersonated account', async () => {
    await t.testClient.impersonateAccount({ address: whale(6) })
    const asDapp = await sendWith(t.url, { Origin: DAPP }, 'anvil_impersonateAccount', [whale(7)])
    expect(asDapp.error?.code).toBe(4100)
    const sent = await sendWith(t.url, { Origin: DAPP }, 'eth_sendTransaction', [{ from: whale(6), to: sink(4), value: '0x1' }])
    expect(sent.error?.code).toBe(4100)
  })

  it('a snapshot keeps who is impersonated; a revert puts it back', async () => {
    const id = await t.testClient.snapshot()
    await t.testClient.setBalance({ address: whale(8), value: parseEther('1') })
    await t.testClient.impersonateAccount({ address: whale(8) })
    await walletOf(t, whale(8)).sendTransaction({ to: sink(5), value: 1n })
    await t.testClient.revert({ id })
    expect((await t.rpcError('eth_sendTransaction', [{ from: whale(8), to: sink(5), value: '0x1' }])).code).toBe(4100)
  })
})

describe('wallet_sendCalls from an impersonated account', () => {
  it('works in its non-atomic form', async () => {
    const from = whale(9)
    await t.testClient.setBalance({ address: from, value: parseEther('1') })
    await t.testClient.impersonateAccount({ address: from })
    const { id } = await sendCalls(t, {
      version: '2.0.0',
      chainId: CHAIN_ID,
      from,
      atomicRequired: false,
      calls: [
        { to: sink(6), value: '0x1' },
        { to: sink(6), value: '0x2' },
      ],
    })
    await t.mine()
    const status = await callsStatus(t, id)
    expect(status.status).toBe(200)
    expect(status.receipts).toHaveLength(2)
    expect(await t.publicClient.getBalance({ address: sink(6) })).toBe(3n)
  })

  it('error: its atomic form is 5750, since no key signs the EIP-7702 authorization', async () => {
    const error = await sendCallsError(t, {
      version: '2.0.0',
      chainId: CHAIN_ID,
      from: whale(9),
      atomicRequired: true,
      calls: [{ to: sink(6), value: '0x1' }],
    })
    expect(error.code).toBe(5750)
    expect(error.message).toMatch(/impersonated/)
  })
})

describe('with --data-dir', () => {
  it('an impersonated transaction in the pool survives a restart, and is from its account when sealed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'flashchain-impersonation-'))
    try {
      const first = await startChain({ dataDir })
      await first.testClient.setBalance({ address: whale(10), value: parseEther('1') })
      await first.testClient.impersonateAccount({ address: whale(10) })
      const hash = await walletOf(first, whale(10)).sendTransaction({ to: sink(7), value: 5n })
      await first.close()

      const second = await startChain({ dataDir })
      await second.mine()
      const receipt = await second.publicClient.getTransactionReceipt({ hash })
      expect(receipt.status).toBe('success')
      expect(receipt.from).toBe(whale(10))
      expect(await second.publicClient.getBalance({ address: sink(7) })).toBe(5n)
      await second.close()
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
