// What the fork benchmark's upstream holds at the fork block (two BenchTokens, a MiniAmm pair with liquidity, token
// balances of dev accounts), and the two workloads a peer forking it runs: a token transfer, and a swap.
// Transactions go out as eth_sendTransaction from the standard mnemonic's dev accounts, which the upstream and
// both peers hold unlocked; every wait is bounded.
import { readFileSync } from 'node:fs'

import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  TransactionReceiptNotFoundError,
  type Abi,
  type Address,
  type Hex,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'

import { token } from './chain.ts'
import { sleep } from './servers.ts'

export const amm = JSON.parse(readFileSync(new URL('./contracts/MiniAmm.json', import.meta.url), 'utf8')) as { abi: Abi; bytecode: Hex }

const MNEMONIC = 'test test test test test test test test test test test junk'
const devAddress = (addressIndex: number) => mnemonicToAccount(MNEMONIC, { addressIndex }).address
/** Dev account 0 deploys and provides the liquidity; 1 runs the workloads; 2 swaps on the upstream after the fork block. */
export const [DEPLOYER, SENDER, OTHER] = [devAddress(0), devAddress(1), devAddress(2)]
/** Receives the transfer: an address the upstream has never seen, so its balance slot is a read like any other. */
const RECIPIENT: Address = '0x000000000000000000000000000000000000bEEF'
const ETHER = 10n ** 18n
const SUPPLY = 10n ** 30n
const LIQUIDITY: [bigint, bigint] = [1_000_000n * ETHER, 2_000_000n * ETHER]
const SENDER_TOKENS = 1_000n * ETHER
const TRANSFER = 10n * ETHER
export const SWAP_IN = 100n * ETHER
const RECEIPT_TIMEOUT_MS = 30_000

export type World = {
  /** The upstream block the peers fork at; the upstream has moved on past it. */
  forkBlock: bigint
  upstreamHead: bigint
  tokenA: Address
  tokenB: Address
  pair: Address
  /** The pair's reserves after the workload's swap, from its state at the fork block. */
  reservesAfterSwap: readonly [bigint, bigint]
  swapOut: bigint
}

function clients(url: string) {
  const transport = http(url, { retryCount: 0, timeout: 30_000 })
  return {
    read: createPublicClient({ chain: foundry, transport }),
    write: createWalletClient({ chain: foundry, transport }),
    test: createTestClient({ chain: foundry, mode: 'anvil', transport }),
  }
}

type Clients = ReturnType<typeof clients>

/** Waits (polling every 5 ms, at most 30 s) for the transaction's receipt, which must say it succeeded. */
async function mined({ read }: Clients, hash: Hex) {
  const deadline = performance.now() + RECEIPT_TIMEOUT_MS
  for (;;) {
    try {
      const receipt = await read.getTransactionReceipt({ hash })
      if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`)
      return receipt
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError) || performance.now() > deadline) throw error
      await sleep(5)
    }
  }
}

/** Sends `functionName(args)` to `address` from `account` and waits for it to succeed. */
async function call(clients: Clients, account: Address, address: Address, abi: Abi, functionName: string, args: readonly unknown[]) {
  return mined(clients, await clients.write.writeContract({ account, address, abi, functionName, args }))
}

async function deploy(clients: Clients, artifact: { abi: Abi; bytecode: Hex }, args: readonly unknown[]): Promise<Address> {
  const hash = await clients.write.deployContract({ account: DEPLOYER, abi: artifact.abi, bytecode: artifact.bytecode, args })
  return (await mined(clients, hash)).contractAddress!
}

/**
 * Deploys the tokens and the pair on an automining upstream, adds liquidity, gives dev account 1 tokens to spend,
 * and mines: that block is the fork block. Then dev account 2 swaps on the upstream, so that a peer reading past
 * the fork block would see other reserves and fail the swap workload's check.
 */
export async function seedUpstream(url: string): Promise<World> {
  const upstream = clients(url)
  const tokenA = await deploy(upstream, token, [SUPPLY])
  const tokenB = await deploy(upstream, token, [SUPPLY])
  const pair = await deploy(upstream, amm, [tokenA, tokenB])
  for (const address of [tokenA, tokenB]) await call(upstream, DEPLOYER, address, token.abi, 'approve', [pair, SUPPLY])
  await call(upstream, DEPLOYER, pair, amm.abi, 'addLiquidity', LIQUIDITY)
  for (const to of [SENDER, OTHER]) await call(upstream, DEPLOYER, tokenA, token.abi, 'transfer', [to, SENDER_TOKENS])
  await call(upstream, DEPLOYER, tokenB, token.abi, 'transfer', [SENDER, SENDER_TOKENS])
  await upstream.test.mine({ blocks: 1 })
  const forkBlock = await upstream.read.getBlockNumber({ cacheTime: 0 })

  const atFork = { address: pair, abi: amm.abi, blockNumber: forkBlock } as const
  const [reserveA, reserveB] = (await upstream.read.readContract({ ...atFork, functionName: 'getReserves' })) as [bigint, bigint]
  const swapOut = (await upstream.read.readContract({ ...atFork, functionName: 'quote', args: [SWAP_IN, reserveA, reserveB] })) as bigint

  await call(upstream, OTHER, tokenA, token.abi, 'approve', [pair, SWAP_IN])
  await call(upstream, OTHER, pair, amm.abi, 'swap', [tokenA, SWAP_IN, 0n, OTHER])
  await upstream.test.mine({ blocks: 1 })
  const upstreamHead = await upstream.read.getBlockNumber({ cacheTime: 0 })
  return { forkBlock, upstreamHead, tokenA, tokenB, pair, reservesAfterSwap: [reserveA + SWAP_IN, reserveB - swapOut], swapOut }
}

export type WorkloadName = 'transfer' | 'swap'

/** Workload (a): dev account 1 sends 10 tokens to a new address and waits for the receipt. */
async function transfer(peer: Clients, world: World): Promise<void> {
  await call(peer, SENDER, world.tokenA, token.abi, 'transfer', [RECIPIENT, TRANSFER])
}

/** Workload (b): dev account 1 approves the pair, swaps 100 token A for at least the fork block's quote, and reads the reserves. */
async function swap(peer: Clients, world: World): Promise<void> {
  await call(peer, SENDER, world.tokenA, token.abi, 'approve', [world.pair, SWAP_IN])
  await call(peer, SENDER, world.pair, amm.abi, 'swap', [world.tokenA, SWAP_IN, world.swapOut, SENDER])
  const reserves = (await peer.read.readContract({ address: world.pair, abi: amm.abi, functionName: 'getReserves' })) as [bigint, bigint]
  if (reserves[0] !== world.reservesAfterSwap[0] || reserves[1] !== world.reservesAfterSwap[1])
    throw new Error(`reserves after the swap are ${reserves.join(', ')}, expected ${world.reservesAfterSwap.join(', ')}`)
}

/** Runs a workload against the peer at `url`. */
export function runWorkload(name: WorkloadName, url: string, world: World): Promise<void> {
  return (name === 'transfer' ? transfer : swap)(clients(url), world)
}
