/**
 * Shared setup of the wallet's end-to-end suites (wallet_sendCalls, approvals, authorization, watchAsset,
 * capabilities). Built on helpers.ts: a real flashchain server with manual mining, driven over HTTP, plus what the
 * wallet needs on top: requests carrying an HTTP `Origin`, batch builders, the call-status shape, bounded polls and
 * an ERC20-like token compiled from source with the pinned npm solc.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { encodeFunctionData } from 'viem'

import { Reverter, Store } from './fixtures/contracts.ts'
import { deploy, startChain } from './helpers.ts'

import type { Abi, Hex } from 'viem'
import type { FlashchainOptions } from '../../src/index.ts'
import type { ApprovalDecision, ApprovalKey } from '../../src/wallet/approvalKeys.ts'
import type { RpcErrorBody, RpcResponse, TestChain } from './helpers.ts'

export type { ApprovalDecision }

/** The wallet's library options (the lead adds them to createFlashchain); typed here so the suites compile now. */
export type WalletOptions = FlashchainOptions & {
  approval?: ApprovalDecision
  approvalTimeout?: number
  walletToken?: string
  maxBatchSize?: number
}

/** The suites' dApps are trusted origins (--allowed-origins), so that approve grants them at once. */
export async function startWallet(options: WalletOptions = {}): Promise<TestChain> {
  return startChain({ allowedOrigins: [DAPP, OTHER_DAPP], ...options } as FlashchainOptions)
}

/** The wallet's selected network: the dev chain, 31337. */
export const CHAIN_ID = '0x7a69'

/** The ERC-7821 batch executor predeployed by flashchain. */
export const EXECUTOR = '0x7821000000000000000000000000000000007821'

/** What eth_getCode answers for an account delegated to the executor (EIP-7702 designator). */
export const EXECUTOR_DESIGNATOR = `0xef0100${EXECUTOR.slice(2)}`

/**
 * viem's `fallbackMagicIdentifier` (node_modules/viem/actions/wallet/sendCalls.ts): an id ending in it makes viem's
 * getCallsStatus read receipts itself instead of asking the wallet, so a wallet must never mint one.
 */
export const VIEM_FALLBACK_MARKER = `0x${'5792'.repeat(16)}`

/** Origins of browser dApps. */
export const DAPP = 'https://dapp.example'
export const OTHER_DAPP = 'https://other.example'

/** The messages of EIP-5792's errors and of the approval policy (docs/wallet.md). */
export const MESSAGES = {
  rejected: 'User rejected the request',
  unauthorized: 'The requested account and/or method has not been authorized by the user',
  unsupportedCapability: 'The wallet does not support a capability that was not marked as optional',
  noEip7702: 'EIP-7702 not supported on the specified chain ID',
  duplicateId: 'There is already a batch submitted with the specified batch ID',
  tooLarge: 'The batch is too large for the wallet to process',
  upgradeRejected: 'EIP-7702 upgrade rejected for this chain and account',
} as const

export const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/
export const HASH = /^0x[0-9a-f]{64}$/
export const ADDRESS = /^0x[0-9a-fA-F]{40}$/

export type CallParam = {
  to?: string
  value?: unknown
  data?: string
  capabilities?: Record<string, unknown>
}

export type SendCallsParam = {
  version?: unknown
  id?: unknown
  from?: unknown
  chainId?: unknown
  atomicRequired?: unknown
  calls?: unknown
  capabilities?: Record<string, unknown>
}

export type SendCallsResult = { id: string; batchId: string; status: string }

export type WalletReceipt = {
  logs: { address: Hex; data: Hex; topics: Hex[] }[]
  status: Hex
  blockHash: Hex
  blockNumber: Hex
  gasUsed: Hex
  transactionHash: Hex
}

export type CallsStatus = {
  version: string
  id: string
  chainId: string
  status: number
  atomic: boolean
  receipts?: WalletReceipt[]
}

export type Permission = {
  parentCapability: string
  invoker: string
  caveats: { type: string; value: unknown }[]
  date: number
}

export type PendingApproval = { id: string; method: string; params: unknown; origin: string | null; createdAt: number }

export type WatchedAsset = { address: string; symbol: string; decimals: number; image?: string; chainId?: unknown }

/** A wallet_sendCalls parameter object: version 2.0.0, the selected chain, atomic unless `extra` says otherwise. */
export function batch(from: string, calls: CallParam[], extra: SendCallsParam = {}): SendCallsParam {
  return { version: '2.0.0', from, chainId: CHAIN_ID, atomicRequired: true, calls, ...extra }
}

/** A copy of `object` without `key`. */
export function without<T extends object>(object: T, key: keyof T): T {
  const copy = { ...object }
  delete copy[key]
  return copy
}

export const storeSet = (store: string, value: bigint, extra: CallParam = {}): CallParam => ({
  to: store,
  data: encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [value] }),
  ...extra,
})

export const revertingCall = (reverter: string, extra: CallParam = {}): CallParam => ({
  to: reverter,
  data: encodeFunctionData({ abi: Reverter.abi, functionName: 'nope' }),
  ...extra,
})

export async function readStore(t: TestChain, store: string, blockTag: 'latest' | 'pending' = 'latest'): Promise<bigint> {
  return t.publicClient.readContract({ address: store as Hex, abi: Store.abi, functionName: 'value', blockTag })
}

/** Deploys contracts from dev account `from` (one block, sealed) and returns their addresses in order. */
export async function deployAll(
  t: TestChain,
  contracts: { contract: { abi: Abi; bytecode: Hex }; args?: readonly unknown[] }[],
  from = 9,
): Promise<Hex[]> {
  const addresses: Hex[] = []
  for (const { contract, args } of contracts) addresses.push((await deploy(t, contract, args ?? [], from)).address)
  await t.mine()
  for (const address of addresses) {
    const code = await t.rpc<Hex>('eth_getCode', [address, 'latest'])
    if (code === '0x') throw new Error(`deployment to ${address} failed`)
  }
  return addresses
}

/** One JSON-RPC request over HTTP with extra headers (Origin, Authorization); the whole response. */
export async function sendWith(url: string, headers: Record<string, string>, method: string, params: unknown = []): Promise<RpcResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return (await response.json()) as RpcResponse
}

/** Requests as a browser dApp at `origin` would send them. */
export type Client = {
  send(method: string, params?: unknown): Promise<RpcResponse>
  rpc<T = unknown>(method: string, params?: unknown): Promise<T>
  rpcError(method: string, params?: unknown): Promise<RpcErrorBody>
}

export function clientWith(url: string, headers: Record<string, string>): Client {
  const send = (method: string, params?: unknown) => sendWith(url, headers, method, params ?? [])
  return {
    send,
    async rpc<T>(method: string, params?: unknown): Promise<T> {
      const response = await send(method, params)
      if (response.error !== undefined) throw new Error(`${method} failed: ${response.error.code} ${response.error.message}`)
      return response.result as T
    },
    async rpcError(method: string, params?: unknown): Promise<RpcErrorBody> {
      const response = await send(method, params)
      if (response.error === undefined) {
        throw new Error(`${method} succeeded with ${JSON.stringify(response.result)}, an error was expected`)
      }
      return response.error
    },
  }
}

export const originClient = (t: TestChain, origin: string): Client => clientWith(t.url, { Origin: origin })

/** The owner (no Origin header), with the raw-params flexibility of clientWith (object params for watchAsset). */
export const ownerClient = (t: TestChain): Client => clientWith(t.url, {})

export async function sendCalls(t: TestChain, param: SendCallsParam): Promise<SendCallsResult> {
  return t.rpc<SendCallsResult>('wallet_sendCalls', [param])
}

export async function sendCallsError(t: TestChain, param: SendCallsParam): Promise<RpcErrorBody> {
  return t.rpcError('wallet_sendCalls', [param])
}

export async function callsStatus(t: TestChain, id: string): Promise<CallsStatus> {
  return t.rpc<CallsStatus>('wallet_getCallsStatus', [id])
}

export async function setPolicy(
  t: TestChain,
  policy: {
    default: ApprovalDecision
    methods?: Partial<Record<ApprovalKey, ApprovalDecision>>
  },
): Promise<void> {
  const result = await t.rpc('flashchain_setApprovalPolicy', [policy])
  if (result !== true) throw new Error(`flashchain_setApprovalPolicy answered ${JSON.stringify(result)}`)
}

/**
 * Polls `read` every 10 ms until `done` holds, for at most `timeoutMs`; throws with the last value otherwise. The bound
 * is no measure of speed: it turns a condition that never comes into a failure that shows the last value, and leaves
 * a loaded machine ample time.
 */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let value = await read()
  while (!done(value)) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
    value = await read()
  }
  return value
}

/** Waits (bounded) until exactly `count` approvals are pending, and returns them. */
export async function pendingApprovals(t: TestChain, count: number): Promise<PendingApproval[]> {
  return pollUntil(
    () => t.rpc<PendingApproval[]>('flashchain_getPendingApprovals', []),
    (list) => list.length === count,
  )
}

/** Whether a promise has settled yet, without waiting for it. */
export async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending')
  const winner = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    new Promise((resolve) => setImmediate(() => resolve(marker))),
  ])
  return winner !== marker
}

/** Asserts the hex fields of a wallet receipt (EIP-5792: hex strings, status 0x1 / 0x0). */
export function checkReceipt(receipt: WalletReceipt): string[] {
  const problems: string[] = []
  if (receipt.status !== '0x1' && receipt.status !== '0x0') problems.push(`status ${receipt.status}`)
  if (!HASH.test(receipt.blockHash)) problems.push(`blockHash ${receipt.blockHash}`)
  if (!HASH.test(receipt.transactionHash)) problems.push(`transactionHash ${receipt.transactionHash}`)
  if (!QUANTITY.test(receipt.blockNumber)) problems.push(`blockNumber ${receipt.blockNumber}`)
  if (!QUANTITY.test(receipt.gasUsed)) problems.push(`gasUsed ${receipt.gasUsed}`)
  if (!Array.isArray(receipt.logs)) problems.push('logs missing')
  else {
    for (const log of receipt.logs) {
      if (!ADDRESS.test(log.address)) problems.push(`log address ${log.address}`)
      if (typeof log.data !== 'string' || !log.data.startsWith('0x')) problems.push(`log data ${log.data}`)
      if (!Array.isArray(log.topics) || !log.topics.every((topic) => HASH.test(topic))) problems.push('log topics')
    }
  }
  return problems
}

/** Whether `message` names the field: each part appears as a word (e.g. "calls", "0", "to" for calls[0].to). */
export function namesField(message: string, ...parts: string[]): boolean {
  return parts.every((part) => new RegExp(`(^|[^A-Za-z0-9])${part}([^A-Za-z0-9]|$)`).test(message))
}

/** A temporary data directory, removed by the returned function. */
export function tempDataDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `flashchain-${prefix}-`))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

// ---------------------------------------------------------------------------------------------------------------
// An ERC20-like token with symbol() and decimals(), compiled from source with the pinned npm solc (~0.6 s).

export const TOKEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// The smallest token wallet_watchAsset can check on chain: symbol(), decimals(), and a balance to look real.
contract Token {
    string public symbol;
    string public name;
    uint8 public decimals;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    constructor(string memory symbol_, uint8 decimals_) {
        symbol = symbol_;
        name = symbol_;
        decimals = decimals_;
        totalSupply = 1000;
        balanceOf[msg.sender] = 1000;
    }
}
`

export type Compiled = { abi: Abi; bytecode: Hex }

/** Compiles contract `name` of a Solidity source with the pinned npm solc. */
export function compileSolidity(source: string, name: string): Compiled {
  const require = createRequire(import.meta.url)
  const solc = require('solc') as { compile(input: string): string }
  const input = {
    language: 'Solidity',
    sources: { [`${name}.sol`]: { content: source } },
    settings: { evmVersion: 'prague', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[]
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>
  }
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join('\n'))
  const compiled = output.contracts[`${name}.sol`]![name]!
  return { abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}` }
}

let token: Compiled | undefined

export function compileToken(): Compiled {
  token ??= compileSolidity(TOKEN_SOURCE, 'Token')
  return token
}
