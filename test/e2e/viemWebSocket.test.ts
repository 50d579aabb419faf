/**
 * viem over its webSocket() transport against a chain that produces blocks on its own clock: the watch actions ride
 * on eth_subscribe, and waitForTransactionReceipt on newHeads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createPublicClient, createWalletClient, webSocket } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

import { Store } from './fixtures/contracts.ts'
import { deployStoreSealed, flashchainChain } from './helpers.ts'
import { wsUrl } from './wsHelpers.ts'

import type { Block, Hex, Log, PublicClient, Transport, Chain } from 'viem'
import { createFlashchain, type Flashchain } from '../../src/index.ts'

let flashchain: Flashchain
let client: PublicClient<Transport, Chain>
let store: Hex
const transport = () => webSocket(wsUrl(flashchain.url), { retryCount: 0 })

function walletClient(index: number) {
  const account = privateKeyToAccount(flashchain.chain.spec.accounts[index]!.privateKey)
  return createWalletClient({ chain: flashchainChain(flashchain.url), transport: transport(), account })
}

beforeAll(async () => {
  flashchain = await createFlashchain({ host: '127.0.0.1', port: 0, blockTime: 300, flashblockInterval: 100 })
  // waitForTransactionReceipt polls eth_blockNumber (over the socket) whatever the transport.
  client = createPublicClient({ chain: flashchainChain(flashchain.url), transport: transport(), pollingInterval: 50 })
  store = await deployStoreSealed(client, walletClient(0))
})

afterAll(async () => {
  await flashchain?.close()
})

/** Resolves once `done` holds for what was gathered, or rejects after `ms`. */
function until<T>(gathered: T[], done: (items: T[]) => boolean, ms = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const check = setInterval(() => {
      if (done(gathered)) {
        clearInterval(check)
        resolve()
      } else if (Date.now() - started > ms) {
        clearInterval(check)
        reject(new Error(`not done within ${ms} ms: ${gathered.length} gathered`))
      }
    }, 10)
  })
}

/** The subscriptions the client's socket holds: viem adds one when the node answers its eth_subscribe. */
const subscriptions = async () =>
  (await (client.transport as unknown as { getRpcClient(): Promise<{ subscriptions: Map<unknown, unknown> }> }).getRpcClient()).subscriptions

/** Resolves once the socket holds more subscriptions than `before`: the node sends to the new one from then on. */
async function subscribed(before: number): Promise<void> {
  const held = await subscriptions()
  for (let waited = 0; held.size <= before; waited += 10) {
    if (waited > 20_000) throw new Error('eth_subscribe not answered within 20 s')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('viem webSocket()', () => {
  it('waitForTransactionReceipt answers once the transaction is pre-confirmed', async () => {
    const hash = await walletClient(1).writeContract({ address: store, abi: Store.abi, functionName: 'set', args: [5n], chain: null })
    const receipt = await client.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(receipt.transactionHash).toBe(hash)
    expect(await client.readContract({ address: store, abi: Store.abi, functionName: 'value', blockTag: 'pending' })).toBe(5n)
  })

  it('watchBlocks sees each sealed block once, in order', async () => {
    const blocks: Block[] = []
    const unwatch = client.watchBlocks({ onBlock: (block) => blocks.push(block), emitMissed: false })
    try {
      await until(blocks, (items) => items.length >= 3)
    } finally {
      unwatch()
    }
    for (let i = 1; i < blocks.length; i++) {
      expect(blocks[i]!.number).toBe(blocks[i - 1]!.number! + 1n)
      expect(blocks[i]!.parentHash).toBe(blocks[i - 1]!.hash)
    }
    const sealed = await client.getBlock({ blockNumber: blocks[0]!.number! })
    expect(blocks[0]!.hash).toBe(sealed.hash)
    expect(blocks[0]!.stateRoot).toBe(sealed.stateRoot)
  })

  it('watchContractEvent gets the events of the contract, decoded', async () => {
    const logs: Log[] = []
    const before = (await subscriptions()).size
    const unwatch = client.watchContractEvent({ address: store, abi: Store.abi, eventName: 'ValueSet', onLogs: (batch) => logs.push(...batch) })
    try {
      // The subscription is set up before the transactions go out.
      await subscribed(before)
      const sender = walletClient(2)
      const first = await sender.writeContract({ address: store, abi: Store.abi, functionName: 'set', args: [100n], chain: null })
      const second = await sender.writeContract({ address: store, abi: Store.abi, functionName: 'set', args: [101n], chain: null })
      await until(logs, (items) => items.length >= 2)
      expect(logs.map((log) => log.transactionHash)).toEqual([first, second])
      expect(logs.map((log) => (log as unknown as { args: { value: bigint } }).args.value)).toEqual([100n, 101n])
      expect(logs.every((log) => log.blockHash !== null && log.removed === false)).toBe(true)
    } finally {
      unwatch()
    }
  })

  it('watchPendingTransactions gets each transaction as it enters the pool', async () => {
    const hashes: Hex[] = []
    const before = (await subscriptions()).size
    const unwatch = client.watchPendingTransactions({ onTransactions: (batch) => hashes.push(...batch) })
    try {
      await subscribed(before)
      const sender = walletClient(3)
      const sent = [
        await sender.sendTransaction({ to: flashchain.chain.spec.accounts[4]!.address, value: 1n, chain: null }),
        await sender.sendTransaction({ to: flashchain.chain.spec.accounts[4]!.address, value: 2n, chain: null }),
      ]
      await until(hashes, (items) => items.length >= 2)
      expect(hashes).toEqual(sent)
    } finally {
      unwatch()
    }
  })
})
