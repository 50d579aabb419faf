/**
 * Shared setup of the end-to-end suites: a real flashchain server (in memory, manual mining, bound to 127.0.0.1)
 * driven over HTTP by viem, plus a raw JSON-RPC helper for asserting exact error codes, messages and data.
 */
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  getContractAddress,
  http,
  keccak256,
  toHex as viemToHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

import { createFlashchain } from '../../src/index.ts'
import { Store } from './fixtures/contracts.ts'

import type { Abi, Account, Chain, Hex, PrivateKeyAccount, PublicClient, TestClient, Transport, WalletClient } from 'viem'
import type { Flashchain, FlashchainOptions } from '../../src/index.ts'

export type RpcErrorBody = { code: number; message: string; data?: unknown }
export type RpcResponse = { jsonrpc: '2.0'; id: number | string | null; result?: unknown; error?: RpcErrorBody }

/** The dev chain as viem sees it. */
export function flashchainChain(url: string): Chain {
  return defineChain({
    id: 31337,
    name: 'flashchain',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  })
}

/** What `flashchain_preconfirm` answers. */
export type Preconfirmed = { blockNumber: Hex; flashblockIndex: number; transactions: Hex[] }

export type TestChain = {
  flashchain: Flashchain
  url: string
  chain: Chain
  publicClient: PublicClient<Transport, Chain>
  testClient: TestClient<'anvil', Transport, Chain>
  /** Dev accounts 0…9 as viem local accounts (they sign; the server only sees raw transactions). */
  accounts: PrivateKeyAccount[]
  wallet(index: number): WalletClient<Transport, Chain, Account>
  /** One JSON-RPC request over HTTP; the whole response, error or not. */
  send(method: string, params?: unknown[]): Promise<RpcResponse>
  /** The result of a request; throws when the server answered with an error. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>
  /** The error of a request; throws when the server answered with a result. */
  rpcError(method: string, params?: unknown[]): Promise<RpcErrorBody>
  /** Publishes one flashblock now. */
  preconfirm(): Promise<Preconfirmed>
  /** Pre-confirms what is pending, then seals the block; returns the new head number. */
  mine(): Promise<bigint>
  blockNumber(): Promise<bigint>
  close(): Promise<void>
}

let requestId = 0

/**
 * FLASHCHAIN_TEST_WORKERS, when set, is the `workers` of every chain a suite starts without its own: with 0, the
 * suites run every call on the main thread, and what they assert of the workers' answers is asserted of its.
 */
const testWorkers = process.env.FLASHCHAIN_TEST_WORKERS === undefined ? {} : { workers: Number(process.env.FLASHCHAIN_TEST_WORKERS) }

export async function startChain(options: FlashchainOptions = {}): Promise<TestChain> {
  const flashchain = await createFlashchain({ host: '127.0.0.1', port: 0, mining: 'manual', ...testWorkers, ...options })
  const url = flashchain.url
  const chain = flashchainChain(url)
  // No retries: every request is answered once, and an error is the server's own.
  const transport = http(url, { retryCount: 0 })
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 25 })
  const testClient = createTestClient({ chain, transport, mode: 'anvil', pollingInterval: 25 })
  const accounts = flashchain.chain.spec.accounts.map((account) => privateKeyToAccount(account.privateKey))

  async function send(method: string, params: unknown[] = []): Promise<RpcResponse> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++requestId, method, params }),
    })
    return (await response.json()) as RpcResponse
  }

  async function rpc<T>(method: string, params: unknown[] = []): Promise<T> {
    const response = await send(method, params)
    if (response.error !== undefined) {
      throw new Error(`${method} failed: ${response.error.code} ${response.error.message}`)
    }
    return response.result as T
  }

  async function rpcError(method: string, params: unknown[] = []): Promise<RpcErrorBody> {
    const response = await send(method, params)
    if (response.error === undefined) {
      throw new Error(`${method} succeeded with ${JSON.stringify(response.result)}, an error was expected`)
    }
    return response.error
  }

  return {
    flashchain,
    url,
    chain,
    publicClient,
    testClient,
    accounts,
    wallet: (index) => createWalletClient({ chain, transport, account: accounts[index]!, pollingInterval: 25 }),
    send,
    rpc,
    rpcError,
    preconfirm: () => rpc<Preconfirmed>('flashchain_preconfirm'),
    async mine() {
      await rpc('evm_mine')
      return BigInt(await rpc<Hex>('eth_blockNumber'))
    },
    blockNumber: async () => BigInt(await rpc<Hex>('eth_blockNumber')),
    close: () => flashchain.close(),
  }
}

/**
 * Resolves once an execution worker answers: the chain's workers start with its first call and load for a moment,
 * while the main thread tries calls itself. Sends estimates of distinct transfers (the answer cache would answer a
 * repeated one) until `debug`, the chain's debug lines, says one ran on a worker; at most 400, 25 ms apart.
 */
export async function untilOnWorker(t: TestChain, debug: readonly string[]): Promise<void> {
  const [from, to] = t.accounts
  for (let attempt = 1; attempt <= 400; attempt++) {
    await t.rpc('eth_estimateGas', [{ from: from!.address, to: to!.address, value: toHex(attempt) }])
    if (debug.at(-1)?.endsWith('on a worker')) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`no estimate ran on a worker; the last debug line: ${debug.at(-1)}`)
}

export const toHex = (value: bigint | number): Hex => `0x${value.toString(16)}`

/** The 32-byte word of a storage slot, as eth_getStorageAt answers it. */
export const word = (value: bigint): Hex => `0x${value.toString(16).padStart(64, '0')}`

export const ZERO_WORD = word(0n)

/**
 * Sends a deployment from dev account `from` to the pool (not pre-confirmed) and returns its hash and the address
 * the contract will have, lower case as the server writes addresses.
 */
export async function deploy(
  t: TestChain,
  contract: { abi: Abi; bytecode: Hex },
  args: readonly unknown[] = [],
  from = 0,
): Promise<{ hash: Hex; address: Hex }> {
  const account = t.accounts[from]!
  const nonce = await t.publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' })
  const hash = await t.wallet(from).deployContract({ abi: contract.abi, bytecode: contract.bytecode, args } as never)
  return { hash, address: getContractAddress({ from: account.address, nonce: BigInt(nonce) }).toLowerCase() as Hex }
}

/** The topic of Store's `ValueSet(uint256 indexed value, address indexed by)`. */
export const VALUE_SET = keccak256(viemToHex('ValueSet(uint256,address)'))

/** Sends Store.set(value) from dev account `from`; resolves with the hash once the pool has it. */
export function setStoreValue(t: TestChain, store: Hex, from: number, value: bigint): Promise<Hex> {
  return t.wallet(from).sendTransaction({ to: store, data: encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [value] }) })
}

/**
 * Deploys Store on a chain with its own clock and waits for the block that seals it: the receipt comes at
 * pre-confirmation, and a test that listens for events must not see the deployment's.
 */
export async function deployStoreSealed(client: PublicClient, wallet: WalletClient<Transport, Chain, Account>): Promise<Hex> {
  const hash = await wallet.deployContract({ abi: Store.abi, bytecode: Store.bytecode, args: [1n] })
  const receipt = await client.waitForTransactionReceipt({ hash })
  while ((await client.getBlockNumber({ cacheTime: 0 })) < receipt.blockNumber) await new Promise((resolve) => setTimeout(resolve, 20))
  return receipt.contractAddress!
}
