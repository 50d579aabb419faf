import { brotliDecompressSync } from 'node:zlib'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestClient, encodeFunctionData, http, parseGwei } from 'viem'
import { WebSocket } from 'ws'

import { Store } from './fixtures/contracts.ts'
import { deploy, startChain, toHex, word } from './helpers.ts'
import { wsUrl } from './wsHelpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain

beforeAll(async () => {
  t = await startChain({ mining: 'auto' })
})

afterAll(async () => {
  await t?.close()
})

type Receipt = { blockHash: Hex; blockNumber: Hex; transactionHash: Hex; status: Hex }

describe('--mining auto', () => {
  it('seals each transaction before eth_sendRawTransaction answers: its receipt is there at once, in a new block', async () => {
    const head = await t.blockNumber()
    const hash = await t.wallet(1).sendTransaction({ to: '0x00000000000000000000000000000000000b0b0b', value: 1n })
    const receipt = await t.rpc<Receipt | null>('eth_getTransactionReceipt', [hash])
    expect(receipt).toMatchObject({ transactionHash: hash, blockNumber: toHex(head + 1n), status: '0x1' })
    expect(receipt!.blockHash).toBe((await t.publicClient.getBlock({ blockNumber: head + 1n })).hash)
    expect(await t.blockNumber()).toBe(head + 1n)
    // Nothing is left pending: the pending block is the empty one after the head.
    expect(await t.rpc('eth_getBlockTransactionCountByNumber', ['pending'])).toBe('0x0')
  })

  it('a contract deployed by one request is callable by the next, at latest', async () => {
    const { hash, address } = await deploy(t, Store, [5n], 2)
    expect(await t.rpc<Receipt>('eth_getTransactionReceipt', [hash])).toMatchObject({ status: '0x1' })
    expect(await t.rpc('eth_getStorageAt', [address, '0x0', 'latest'])).toBe(word(5n))
    const set = await t.wallet(2).sendTransaction({ to: address, data: encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [9n] }) })
    expect(await t.rpc<Receipt>('eth_getTransactionReceipt', [set])).toMatchObject({ status: '0x1' })
    expect(await t.rpc('eth_getStorageAt', [address, '0x0', 'latest'])).toBe(word(9n))
  })

  it('transactions sent together are all sealed when their sends answer, and leave no empty block', async () => {
    const head = await t.blockNumber()
    const fees = { maxFeePerGas: parseGwei('5'), maxPriorityFeePerGas: parseGwei('1'), gas: 21_000n }
    const sends = [3, 4, 5, 6, 7, 8].map((index) =>
      t.wallet(index).sendTransaction({ to: '0x00000000000000000000000000000000000c0c0c', value: 1n, ...fees }),
    )
    const hashes = await Promise.all(sends)
    const receipts = await Promise.all(hashes.map((hash) => t.rpc<Receipt | null>('eth_getTransactionReceipt', [hash])))
    expect(receipts.every((receipt) => receipt !== null && receipt.status === '0x1')).toBe(true)
    const newHead = await t.blockNumber()
    expect(newHead > head && newHead <= head + 6n).toBe(true)
    for (let number = head + 1n; number <= newHead; number++) {
      expect((await t.publicClient.getBlock({ blockNumber: number })).transactions.length).toBeGreaterThan(0)
    }
  })
})

describe('evm_setAutomine, anvil_setAutomine, hardhat_getAutomine, anvil_getAutomine', () => {
  it('a block sealed at once, with no stream reader, is the block its flashblocks make when the stream has one', async () => {
    const id = await t.testClient.snapshot()
    const head = await t.publicClient.getBlock()
    const timestamp = head.timestamp + 100n
    const raw = await t.accounts[9]!.signTransaction({
      chainId: t.chain.id,
      nonce: await t.publicClient.getTransactionCount({ address: t.accounts[9]!.address }),
      to: '0x00000000000000000000000000000000000d0d0d',
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: parseGwei('5'),
      maxPriorityFeePerGas: parseGwei('1'),
    })
    const send = async () => {
      await t.rpc('evm_setNextBlockTimestamp', [toHex(timestamp)])
      const hash = await t.rpc<Hex>('eth_sendRawTransaction', [raw])
      return (await t.rpc<Receipt>('eth_getTransactionReceipt', [hash])).blockHash
    }
    const atOnce = await send()
    await t.testClient.revert({ id })

    const reader = new WebSocket(wsUrl(t.url, '/flashblocks'))
    const indexes: number[] = []
    const read = new Promise<void>((resolve) =>
      reader.on('message', (data: Buffer) => {
        const flashblock = JSON.parse(brotliDecompressSync(data).toString('utf8')) as { index: number; diff: { block_hash: Hex } }
        indexes.push(flashblock.index)
        if (flashblock.diff.block_hash === atOnce) resolve()
      }),
    )
    await new Promise((resolve, reject) => reader.once('open', resolve).once('error', reject))
    try {
      expect(await send()).toBe(atOnce)
      // The reader made the block go the flashblocks' way: its system calls, then its transaction.
      await read
      expect(indexes).toEqual([0, 1])
    } finally {
      reader.close()
    }
    expect((await t.publicClient.getBlock({ blockNumber: head.number + 1n })).hash).toBe(atOnce)
  })

  it('turns automine on and off on a manual chain, as viem test clients in anvil and hardhat mode call them', async () => {
    const m = await startChain()
    try {
      const hardhat = createTestClient({ chain: m.chain, transport: http(m.url, { retryCount: 0 }), mode: 'hardhat' })
      expect([await m.testClient.getAutomine(), await hardhat.getAutomine()]).toEqual([false, false])

      await m.testClient.setAutomine(true)
      expect([await m.testClient.getAutomine(), await hardhat.getAutomine()]).toEqual([true, true])
      const sealed = await m.wallet(1).sendTransaction({ to: '0x00000000000000000000000000000000000b0b0b', value: 1n })
      expect(await m.rpc<Receipt | null>('eth_getTransactionReceipt', [sealed])).toMatchObject({ status: '0x1' })

      await hardhat.setAutomine(false)
      expect(await m.testClient.getAutomine()).toBe(false)
      const queued = await m.wallet(1).sendTransaction({ to: '0x00000000000000000000000000000000000b0b0b', value: 1n })
      expect(await m.rpc('eth_getTransactionReceipt', [queued])).toBeNull()
      await m.mine()
      expect(await m.rpc<Receipt | null>('eth_getTransactionReceipt', [queued])).toMatchObject({ status: '0x1' })
      expect(await m.rpc('anvil_setAutomine', [true])).toBeNull()
      expect(await m.rpc('evm_setAutomine', [false])).toBe(true)
    } finally {
      await m.close()
    }
  })

  it('stops the interval clock while automine is on, and starts it again after', async () => {
    const i = await startChain({ mining: 'interval', blockTime: 100, flashblockInterval: 50 })
    try {
      const advances = async () => {
        const from = await i.blockNumber()
        for (let attempt = 0; attempt < 500; attempt++) {
          if ((await i.blockNumber()) > from) return true
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
        return false
      }
      expect(await advances()).toBe(true)
      await i.testClient.setAutomine(true)
      const head = await i.blockNumber()
      await new Promise((resolve) => setTimeout(resolve, 400))
      expect(await i.blockNumber()).toBe(head)
      const hash = await i.wallet(2).sendTransaction({ to: '0x00000000000000000000000000000000000b0b0b', value: 1n })
      expect(await i.rpc<Receipt>('eth_getTransactionReceipt', [hash])).toMatchObject({ blockNumber: toHex(head + 1n) })
      await i.testClient.setAutomine(false)
      expect(await advances()).toBe(true)
    } finally {
      await i.close()
    }
  })

  it('error: evm_setAutomine takes one boolean', async () => {
    expect(await t.rpcError('evm_setAutomine', ['yes'])).toMatchObject({ code: -32602 })
    expect(await t.rpcError('evm_setAutomine', [])).toMatchObject({ code: -32602 })
  })
})
