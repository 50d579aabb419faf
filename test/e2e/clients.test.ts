/**
 * Real clients on the default mode (interval mining, 2 s blocks, 200 ms flashblocks), where a receipt comes at
 * pre-confirmation, before its block seals: viem with the package's chain definition, and ethers v6's wait().
 */
import { afterAll, beforeAll, describe, it } from 'vitest'

import { JsonRpcProvider, Wallet } from 'ethers'
import { createPublicClient, createWalletClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

import { flashchainChain } from '../../src/chains.ts'
import { createFlashchain } from '../../src/index.ts'
import { Store } from './fixtures/contracts.ts'

import type { Flashchain } from '../../src/index.ts'

const ROUNDS = 20
/** Each round waits for up to a block (2 s) and the two clients run side by side: generous on a busy machine. */
const TIMEOUT = 180_000

let node: Flashchain

beforeAll(async () => {
  node = await createFlashchain({ host: '127.0.0.1', port: 0, mining: 'interval' })
})

afterAll(async () => {
  await node?.close()
})

// Side by side, each with its own accounts: the file takes as long as its slower client.
describe.concurrent('viem with flashchain/chains', () => {
  it(`deploys with eth_sendRawTransactionSync and writes to the new contract at once, ${ROUNDS} times`, { timeout: TIMEOUT }, async ({ expect }) => {
    const chain = flashchainChain({ url: node.url })
    const account = privateKeyToAccount(node.chain.spec.accounts[1]!.privateKey)
    const publicClient = createPublicClient({ chain, transport: http(node.url, { retryCount: 0 }) })
    const wallet = createWalletClient({ chain, account, transport: http(node.url, { retryCount: 0 }) })
    // What the chain definition gives a client: reads at `pending`, polls at half a block.
    expect(publicClient.experimental_blockTag).toBe('pending')
    expect(publicClient.pollingInterval).toBe(1000)

    const outcomes: string[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const request = await wallet.prepareTransactionRequest({ data: `${Store.bytecode}${round.toString(16).padStart(64, '0')}` })
      const deployed = await wallet.sendRawTransactionSync({ serializedTransaction: await wallet.signTransaction(request) })
      expect(deployed.status).toBe('success')
      const address = deployed.contractAddress!
      // Estimated and read at pending, where the contract already is.
      const hash = await wallet.writeContract({ address, abi: Store.abi, functionName: 'set', args: [BigInt(round) + 1000n] })
      const receipt = await publicClient.waitForTransactionReceipt({ hash })
      const value = await publicClient.readContract({ address, abi: Store.abi, functionName: 'value' })
      outcomes.push(`${receipt.status} ${value}`)
    }
    expect(outcomes).toEqual(Array.from({ length: ROUNDS }, (_, round) => `success ${round + 1000}`))
  })
})

describe.concurrent('ethers v6', () => {
  it(`wait() answers each transfer's receipt with its block hash, ${ROUNDS} times`, { timeout: TIMEOUT }, async ({ expect }) => {
    // cacheTimeout -1: ethers shares identical requests made within 250 ms, so a send that follows a quick wait()
    // would reuse the last eth_getTransactionCount and its nonce (ethers' advice for nodes that answer at once,
    // ethers-io/ethers.js#4549; docs/clients.md).
    const provider = new JsonRpcProvider(node.url, 31337, { staticNetwork: true, cacheTimeout: -1 })
    // Polls for new blocks every 100 ms rather than 4 s, so that the test is short; what it reads is the same.
    provider.pollingInterval = 100
    const wallet = new Wallet(node.chain.spec.accounts[2]!.privateKey, provider)
    const recipient = node.chain.spec.accounts[3]!.address
    try {
      const outcomes: string[] = []
      for (let round = 0; round < ROUNDS; round++) {
        const sent = await wallet.sendTransaction({ to: recipient, value: BigInt(round + 1) })
        const receipt = (await sent.wait())!
        const block = (await receipt.getBlock())!
        outcomes.push(
          `${receipt.status} ${receipt.hash === sent.hash} ${/^0x[0-9a-f]{64}$/.test(receipt.blockHash)} ${block.hash === receipt.blockHash}`,
        )
      }
      expect(outcomes).toEqual(Array.from({ length: ROUNDS }, () => '1 true true true'))
    } finally {
      provider.destroy()
    }
  })
})
