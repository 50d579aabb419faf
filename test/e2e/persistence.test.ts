import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { createPublicClient, defineChain, http, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, test } from 'vitest'

import { killHard, startCli } from './processes.ts'

const devKey = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const recipient = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const chain = defineChain({
  id: 31337,
  name: 'flashchain',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
})

describe('persistence', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'flashchain-persistence-'))
  const running: ChildProcess[] = []
  afterAll(async () => {
    for (const child of running) if (child.exitCode === null && child.signalCode === null) await killHard(child)
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('every transaction whose hash was returned survives kill -9, sealed or pooled', async () => {
    const first = await startCli(dataDir)
    running.push(first.child)
    let client = createPublicClient({ chain, transport: http(first.url) })
    const account = privateKeyToAccount(devKey)
    const sign = (nonce: number) =>
      account.signTransaction({
        chainId: 31337,
        type: 'eip1559',
        to: recipient,
        value: parseEther('1') + BigInt(nonce),
        nonce,
        gas: 21_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      })

    // Two sealed, one pre-confirmed but not sealed, two only in the pool.
    const sealed = [
      await client.sendRawTransaction({ serializedTransaction: await sign(0) }),
      await client.sendRawTransaction({ serializedTransaction: await sign(1) }),
    ]
    await client.request({ method: 'evm_mine' as never })
    const preconfirmed = await client.sendRawTransaction({ serializedTransaction: await sign(2) })
    await client.request({ method: 'flashchain_preconfirm' as never })
    const pooled = [
      await client.sendRawTransaction({ serializedTransaction: await sign(3) }),
      await client.sendRawTransaction({ serializedTransaction: await sign(4) }),
    ]
    const headBefore = await client.getBlockNumber()
    const sealedBlock = await client.getBlock({ blockNumber: 1n })

    await killHard(first.child)

    const second = await startCli(dataDir)
    running.push(second.child)
    client = createPublicClient({ chain, transport: http(second.url) })

    expect(await client.getBlockNumber()).toBe(headBefore)
    expect((await client.getBlock({ blockNumber: 1n })).hash).toBe(sealedBlock.hash)
    for (const hash of sealed) {
      const receipt = await client.getTransactionReceipt({ hash })
      expect(receipt.blockNumber).toBe(1n)
      expect(receipt.status).toBe('success')
    }
    // Not yet sealed before the crash: back in the pool, in order.
    for (const hash of [preconfirmed, ...pooled]) {
      const tx = await client.getTransaction({ hash })
      expect(tx.blockNumber).toBeNull()
    }
    expect(await client.getTransactionCount({ address: account.address, blockTag: 'pending' })).toBe(5)

    await client.request({ method: 'evm_mine' as never })
    for (const hash of [preconfirmed, ...pooled]) {
      const receipt = await client.getTransactionReceipt({ hash })
      expect(receipt.blockNumber).toBe(headBefore + 1n)
      expect(receipt.status).toBe('success')
    }
    expect(await client.getBalance({ address: recipient })).toBe(parseEther('10000') + parseEther('5') + 0n + 1n + 2n + 3n + 4n)
    // The data dir is one process's: the next test starts its own on it.
    await killHard(second.child)
  })

  test('a restart resumes the chain with its state', async () => {
    const restarted = await startCli(dataDir)
    running.push(restarted.child)
    const client = createPublicClient({ chain, transport: http(restarted.url) })
    expect(await client.getBlockNumber()).toBe(2n)
    expect(await client.getTransactionCount({ address: privateKeyToAccount(devKey).address })).toBe(5)
    // Historical state stays readable after a restart.
    expect(await client.getBalance({ address: recipient, blockNumber: 0n })).toBe(parseEther('10000'))
    expect(await client.getBalance({ address: recipient, blockNumber: 1n })).toBe(parseEther('10002') + 1n)
    await killHard(restarted.child)
  })
})
