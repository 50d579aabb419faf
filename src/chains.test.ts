import { createPublicClient, http } from 'viem'
import { describe, expect, test } from 'vitest'

import { flashchain, flashchainChain } from './chains.ts'

describe('flashchain/chains', () => {
  test('default: the command line’s node, with Base’s pre-confirmation settings', () => {
    expect(flashchain).toMatchObject({
      id: 31337,
      name: 'flashchain',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: ['http://127.0.0.1:8545'], webSocket: ['ws://127.0.0.1:8545'] } },
      blockTime: 2000,
      experimental_preconfirmationTime: 200,
      testnet: true,
    })
  })

  test('args: another URL, chain id and clock', () => {
    const chain = flashchainChain({ url: 'https://node.test:9545/rpc', chainId: 8453, blockTime: 1000, flashblockInterval: 100, name: 'local base' })
    expect(chain).toMatchObject({
      id: 8453,
      name: 'local base',
      rpcUrls: { default: { http: ['https://node.test:9545/rpc'], webSocket: ['wss://node.test:9545/rpc'] } },
      blockTime: 1000,
      experimental_preconfirmationTime: 100,
    })
  })

  test('a viem client on it reads pending and polls at half a block', () => {
    const client = createPublicClient({ chain: flashchain, transport: http() })
    expect(client.experimental_blockTag).toBe('pending')
    expect(client.pollingInterval).toBe(1000)
    const fast = createPublicClient({ chain: flashchainChain({ blockTime: 400 }), transport: http() })
    // viem's floor for a polling interval is 500 ms.
    expect(fast.pollingInterval).toBe(500)
  })
})
