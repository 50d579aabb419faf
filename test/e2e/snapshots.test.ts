import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { createPublicClient, createTestClient, http, parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { flashchainChain, startChain, toHex } from './helpers.ts'
import { killHard, startCli } from './processes.ts'
import { CHAIN_ID, callsStatus, sendCalls } from './walletHelpers.ts'

import type { ChildProcess } from 'node:child_process'
import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

const sink = (n: number) => `0x${n.toString(16).padStart(40, 'd')}` as Hex
const balance = (address: Hex, blockTag: 'latest' | 'pending' = 'latest') => t.publicClient.getBalance({ address, blockTag })
const pendingBlock = () => t.rpc<{ number: Hex; transactions: Hex[] }>('eth_getBlockByNumber', ['pending', false])

describe('evm_snapshot, evm_revert', () => {
  it('go back across seals, flashblocks and edits: blocks, state, receipts and the clock', async () => {
    const head = await t.blockNumber()
    const before = await balance(sink(1))
    const timestamp = (await t.publicClient.getBlock()).timestamp
    const id = await t.testClient.snapshot()
    expect(id).toMatch(/^0x[0-9a-f]+$/)

    const sent = await t.wallet(1).sendTransaction({ to: sink(1), value: 5n })
    await t.preconfirm()
    await t.mine()
    await t.testClient.mine({ blocks: 3 })
    await t.testClient.setBalance({ address: sink(2), value: 99n })
    await t.testClient.increaseTime({ seconds: 86_400 })
    await t.mine()
    expect(await t.blockNumber()).toBe(head + 5n)
    expect(await balance(sink(1))).toBe(before + 5n)

    await t.testClient.revert({ id })
    expect(await t.blockNumber()).toBe(head)
    expect(await balance(sink(1))).toBe(before)
    expect(await balance(sink(1), 'pending')).toBe(before)
    expect(await balance(sink(2))).toBe(0n)
    expect(await t.rpc('eth_getTransactionReceipt', [sent])).toBeNull()
    expect(await t.rpc('eth_getTransactionByHash', [sent])).toBeNull()
    expect(await t.rpc('eth_getBlockByNumber', [toHex(head + 1n), false])).toBeNull()

    // The chain goes on from the snapshot: new blocks, with the clock as it was (no day added).
    const again = await t.wallet(1).sendTransaction({ to: sink(1), value: 7n })
    await t.mine()
    expect((await t.publicClient.getTransactionReceipt({ hash: again })).blockNumber).toBe(head + 1n)
    expect((await t.publicClient.getBlock()).timestamp - timestamp < 3_600n).toBe(true)
    expect(await balance(sink(1))).toBe(before + 7n)
  })

  it('restore the block being built and the pool: pre-confirmed and queued transactions come back', async () => {
    const preconfirmed = await t.wallet(2).sendTransaction({ to: sink(3), value: 1n })
    await t.preconfirm()
    const queued = await t.wallet(3).sendTransaction({ to: sink(3), value: 2n })
    const id = await t.testClient.snapshot()

    await t.mine()
    expect(await balance(sink(3))).toBe(3n)
    await t.testClient.revert({ id })

    const pending = await pendingBlock()
    expect(pending.transactions).toEqual([preconfirmed])
    expect(await balance(sink(3), 'pending')).toBe(1n)
    expect(await balance(sink(3))).toBe(0n)
    expect((await t.rpc<{ pending: Record<string, unknown> }>('txpool_content')).pending).toHaveProperty(t.accounts[3]!.address)
    await t.mine()
    expect(await balance(sink(3))).toBe(3n)
    expect((await t.publicClient.getTransactionReceipt({ hash: queued })).status).toBe('success')
  })

  it("Hardhat's semantics: a revert deletes that snapshot and every later one; an unknown id answers false", async () => {
    const first = await t.rpc<Hex>('evm_snapshot')
    const second = await t.rpc<Hex>('anvil_snapshot')
    const third = await t.rpc<Hex>('evm_snapshot')
    expect(new Set([first, second, third]).size).toBe(3)
    expect(await t.rpc('evm_revert', [second])).toBe(true)
    expect(await t.rpc('evm_revert', [third])).toBe(false)
    expect(await t.rpc('evm_revert', [second])).toBe(false)
    expect(await t.rpc('anvil_revert', [first])).toBe(true)
    expect(await t.rpc('evm_revert', [first])).toBe(false)
    expect(await t.rpc('evm_revert', ['0xffff'])).toBe(false)
    expect((await t.rpcError('evm_revert', ['one'])).code).toBe(-32602)
  })

  it('an edit made after a snapshot of the same block is taken back, one made before it stays', async () => {
    await t.testClient.setBalance({ address: sink(4), value: 10n })
    const id = await t.testClient.snapshot()
    await t.testClient.setBalance({ address: sink(4), value: 20n })
    await t.testClient.setStorageAt({ address: sink(4), index: 1, value: `0x${'00'.repeat(31)}07` })
    await t.testClient.setBalance({ address: sink(5), value: 30n })
    await t.testClient.revert({ id })
    expect(await balance(sink(4))).toBe(10n)
    expect(await balance(sink(4), 'pending')).toBe(10n)
    expect(await t.publicClient.getStorageAt({ address: sink(4), slot: '0x1' })).toBe(`0x${'00'.repeat(32)}`)
    expect(await balance(sink(5))).toBe(0n)
  })

  it('reverts the wallet beside the chain: a batch sent after the snapshot is unknown again', async () => {
    const from = t.accounts[5]!.address
    const id = await t.testClient.snapshot()
    const { id: batch } = await sendCalls(t, {
      version: '2.0.0',
      chainId: CHAIN_ID,
      from,
      atomicRequired: false,
      calls: [{ to: sink(6), value: '0x1' }],
    })
    await t.mine()
    expect((await callsStatus(t, batch)).status).toBe(200)
    await t.testClient.revert({ id })
    expect((await t.rpcError('wallet_getCallsStatus', [batch])).code).toBe(5730)
    expect(await balance(sink(6))).toBe(0n)
  })

  it('a batch sent before the snapshot and sealed after it reads as pending again after the revert', async () => {
    const from = t.accounts[6]!.address
    const { id: batch } = await sendCalls(t, {
      version: '2.0.0',
      chainId: CHAIN_ID,
      from,
      atomicRequired: false,
      calls: [{ to: sink(10), value: '0x1' }],
    })
    const id = await t.testClient.snapshot()
    await t.mine()
    expect((await callsStatus(t, batch)).status).toBe(200)
    await t.testClient.revert({ id })
    expect((await callsStatus(t, batch)).status).toBe(100)
    await t.mine()
    expect((await callsStatus(t, batch)).status).toBe(200)
  })

  it('error: a browser origin may not take or use snapshots', async () => {
    const response = await fetch(t.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'https://dapp.example' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_snapshot', params: [] }),
    })
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(4100)
  })
})

describe('anvil_reset, hardhat_reset', () => {
  it('go back to block 0 as the chain was created; snapshots are gone', async () => {
    const chain = await startChain()
    try {
      const genesis = await chain.publicClient.getBlock({ blockNumber: 0n })
      const devBalance = await chain.publicClient.getBalance({ address: chain.accounts[0]!.address })
      const id = await chain.testClient.snapshot()
      await chain.wallet(0).sendTransaction({ to: sink(7), value: parseEther('1') })
      await chain.testClient.mine({ blocks: 4 })
      await chain.testClient.setBalance({ address: sink(8), value: 1n })
      await chain.wallet(1).sendTransaction({ to: sink(7), value: 1n })

      await chain.testClient.reset()
      expect(await chain.blockNumber()).toBe(0n)
      expect((await chain.publicClient.getBlock()).hash).toBe(genesis.hash)
      expect(await chain.publicClient.getBalance({ address: chain.accounts[0]!.address })).toBe(devBalance)
      expect(await chain.publicClient.getBalance({ address: sink(7), blockTag: 'pending' })).toBe(0n)
      expect(await chain.publicClient.getBalance({ address: sink(8) })).toBe(0n)
      expect(await chain.rpc('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' })
      expect(await chain.rpc('evm_revert', [id])).toBe(false)

      const hardhat = createTestClient({ chain: chain.chain, transport: http(chain.url, { retryCount: 0 }), mode: 'hardhat' })
      await chain.wallet(0).sendTransaction({ to: sink(7), value: 1n })
      await chain.mine()
      await hardhat.reset()
      expect(await chain.blockNumber()).toBe(0n)
      await chain.wallet(0).sendTransaction({ to: sink(7), value: 2n })
      await chain.mine()
      expect(await chain.publicClient.getBalance({ address: sink(7) })).toBe(2n)
    } finally {
      await chain.close()
    }
  })

  it('error: a chain started without --fork-url does not become a fork: a fork URL or block is refused with -32602', async () => {
    const error = await t.rpcError('anvil_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:1', blockNumber: 5 } }])
    expect(error).toEqual({
      code: -32602,
      message: 'this chain is not a fork: reset takes no jsonRpcUrl or blockNumber here; start flashchain with --fork-url to fork',
    })
  })
})

describe('with --data-dir', () => {
  it('a revert is what a restart finds; a snapshot id does not survive it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'flashchain-snapshots-'))
    try {
      const first = await startChain({ dataDir })
      await first.mine()
      const id = await first.testClient.snapshot()
      await first.wallet(0).sendTransaction({ to: sink(9), value: 3n })
      await first.testClient.mine({ blocks: 3 })
      await first.testClient.revert({ id })
      const reverted = await first.blockNumber()
      const kept = await first.rpc<Hex>('evm_snapshot')
      await first.close()

      const second = await startChain({ dataDir })
      expect(await second.blockNumber()).toBe(reverted)
      expect(await second.publicClient.getBalance({ address: sink(9) })).toBe(0n)
      expect(await second.rpc('evm_revert', [kept])).toBe(false)
      await second.close()
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('kill -9 during reverts and resets leaves a chain whose state is one of a finished revert', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'flashchain-snapshot-kill-'))
    const running: ChildProcess[] = []
    try {
      for (let round = 0; round < 4; round++) {
        const node = await startCli(dataDir, [])
        running.push(node.child)
        const client = createPublicClient({ chain: flashchainChain(node.url), transport: http(node.url, { retryCount: 0 }) })
        const test = createTestClient({ chain: flashchainChain(node.url), transport: http(node.url, { retryCount: 0 }), mode: 'anvil' })
        // Each round starts from what the last left: a chain at a block the reverts always come back to.
        const base = await client.getBlockNumber()
        let id = await test.snapshot()
        let cycles = 0
        let unknownSnapshot = false
        let firstCycle: () => void = () => {}
        const cycled = new Promise<void>((resolve) => (firstCycle = resolve))
        // Killed at a different moment of the cycle each round, once it is known to be cycling.
        const kill = cycled.then(() => new Promise((resolve) => setTimeout(resolve, 7 + round * 23))).then(() => killHard(node.child))
        const churn = (async () => {
          for (let i = 0; i < 200; i++) {
            await test.mine({ blocks: 5 })
            // A revert deletes the snapshot it goes back to, so each cycle takes it again, as Hardhat users do.
            if ((await test.request({ method: 'evm_revert', params: [id] })) !== (true as unknown)) unknownSnapshot = true
            id = await test.snapshot()
            if (round === 3 && i === 1) {
              await test.reset()
              id = await test.snapshot()
            }
            cycles++
            firstCycle()
          }
        })().catch(() => {})
        await Promise.all([kill, churn])
        expect(cycles).toBeGreaterThan(0)
        expect(unknownSnapshot).toBe(false)

        // A restart rebuilds the state from the stored writes and checks it against the head's state root.
        const check = await startCli(dataDir, [])
        running.push(check.child)
        const checked = createPublicClient({ chain: flashchainChain(check.url), transport: http(check.url, { retryCount: 0 }) })
        const head = await checked.getBlockNumber()
        expect(head - base <= 5n).toBe(true)
        const block = await checked.getBlock({ blockNumber: head })
        if (head > 0n) expect((await checked.getBlock({ blockNumber: head - 1n })).hash).toBe(block.parentHash)
        await killHard(check.child)
        expect(check.output()).not.toMatch(/differs/)
      }
    } finally {
      for (const child of running) if (child.exitCode === null && child.signalCode === null) await killHard(child)
      rmSync(dataDir, { recursive: true, force: true })
    }
    // Four starts of the command: a guard with room for a loaded machine.
  }, 300_000)
})
