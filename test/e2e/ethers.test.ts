/**
 * ethers v6 listening to contract events: WebSocketProvider through eth_subscribe("logs"), JsonRpcProvider through
 * eth_newFilter and eth_getFilterChanges. The chain produces blocks on its own clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { Contract, JsonRpcProvider, WebSocketProvider } from 'ethers'
import { createPublicClient, createWalletClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

import { createFlashchain, type Flashchain } from '../../src/index.ts'
import { Store } from './fixtures/contracts.ts'
import { deployStoreSealed, flashchainChain } from './helpers.ts'
import { wsUrl } from './wsHelpers.ts'

import type { AbstractProvider, ContractEventPayload } from 'ethers'
import type { Hex } from 'viem'

let flashchain: Flashchain
let store: Hex

function walletClient(index: number) {
  const account = privateKeyToAccount(flashchain.chain.spec.accounts[index]!.privateKey)
  return createWalletClient({ chain: flashchainChain(flashchain.url), transport: http(flashchain.url), account })
}

beforeAll(async () => {
  flashchain = await createFlashchain({ host: '127.0.0.1', port: 0, blockTime: 300, flashblockInterval: 100 })
  const client = createPublicClient({ chain: flashchainChain(flashchain.url), transport: http(flashchain.url), pollingInterval: 50 })
  store = await deployStoreSealed(client, walletClient(0))
})

afterAll(async () => {
  await flashchain?.close()
})

type Seen = { value: bigint; by: string; transactionHash: string; blockNumber: number }

/** Listens with contract.on, sends two Store.set, and answers what the listener saw. */
async function listen(provider: AbstractProvider, from: number, values: [bigint, bigint]): Promise<{ seen: Seen[]; sent: Hex[] }> {
  const contract = new Contract(store, Store.abi as never, provider)
  const seen: Seen[] = []
  await contract.on('ValueSet', (value: bigint, by: string, payload: ContractEventPayload) => {
    seen.push({ value, by, transactionHash: payload.log.transactionHash, blockNumber: payload.log.blockNumber })
  })
  try {
    const wallet = walletClient(from)
    const sent: Hex[] = []
    for (const value of values)
      sent.push(await wallet.writeContract({ address: store, abi: Store.abi, functionName: 'set', args: [value], chain: null }))
    for (let waited = 0; seen.length < 2 && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20))
    return { seen, sent }
  } finally {
    await contract.removeAllListeners()
  }
}

describe('ethers v6 contract.on', () => {
  it('WebSocketProvider: each event once, decoded, from eth_subscribe("logs")', async () => {
    const provider = new WebSocketProvider(wsUrl(flashchain.url), 31337)
    try {
      const { seen, sent } = await listen(provider, 1, [7n, 8n])
      const sender = flashchain.chain.spec.accounts[1]!.address
      expect(seen.map((event) => event.value)).toEqual([7n, 8n])
      expect(seen.map((event) => event.by.toLowerCase())).toEqual([sender.toLowerCase(), sender.toLowerCase()])
      expect(seen.map((event) => event.transactionHash)).toEqual(sent)
      expect(seen.every((event) => event.blockNumber > 0)).toBe(true)
    } finally {
      await provider.destroy()
    }
  })

  it('JsonRpcProvider: each event once, decoded, through eth_newFilter and eth_getFilterChanges', async () => {
    const provider = new JsonRpcProvider(flashchain.url, 31337, { staticNetwork: true })
    provider.pollingInterval = 50
    const methods: string[] = []
    provider.on('debug', (info: { action: string; payload?: { method: string } | { method: string }[] }) => {
      if (info.action !== 'sendRpcPayload' || info.payload === undefined) return
      for (const request of [info.payload].flat()) methods.push(request.method)
    })
    try {
      const { seen, sent } = await listen(provider, 2, [9n, 10n])
      expect(seen.map((event) => event.value)).toEqual([9n, 10n])
      expect(seen.map((event) => event.transactionHash)).toEqual(sent)
      expect(methods).toContain('eth_newFilter')
      expect(methods).toContain('eth_getFilterChanges')
      expect(methods).not.toContain('eth_getLogs')
    } finally {
      provider.destroy()
    }
  })
})
