// What the workloads need on every chain: the ERC20 deployed by dev account 0, funded sender accounts, and
// transactions signed before any clock starts. All three chains use chain id 31337 and the standard test
// mnemonic, so one set of signed transactions serves every peer.
import { readFileSync } from 'node:fs'

import { encodeDeployData, getContractAddress, keccak256, toHex, type Abi, type Hex } from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'

import { rpc, type Connection } from './http.ts'
import { sleep } from './servers.ts'

export const CHAIN_ID = 31337

/** Dev account 0 of "test test … junk" on every peer. */
export const DEV_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
export const dev = privateKeyToAccount(DEV_KEY)

/** Fees every signed transaction offers: far above the 1 gwei base fees the peers start from. */
const MAX_FEE = 100_000_000_000n
const TIP = 1_000_000_000n
const SUPPLY = 10n ** 30n
/** Receives the plain transfers; an EOA on every chain. */
export const SINK: Hex = '0x000000000000000000000000000000000000dEaD'

type Artifact = { abi: Abi; bytecode: Hex; deployedBytecode: Hex }
export const token = JSON.parse(readFileSync(new URL('./contracts/BenchToken.json', import.meta.url), 'utf8')) as Artifact

/** Deterministic sender accounts for the transaction workloads, distinct from the dev accounts. */
export function benchAccounts(from: number, count: number): PrivateKeyAccount[] {
  return Array.from({ length: count }, (_, i) => privateKeyToAccount(keccak256(toHex(`flashchain-bench-${from + i}`))))
}

/** A plain 1-wei transfer, signed (EIP-1559). */
export function signTransfer(account: PrivateKeyAccount, nonce: number, to: Hex = SINK, value = 1n): Promise<Hex> {
  return account.signTransaction({
    chainId: CHAIN_ID,
    type: 'eip1559',
    nonce,
    to,
    value,
    gas: 21_000n,
    maxFeePerGas: MAX_FEE,
    maxPriorityFeePerGas: TIP,
  })
}

/** `count` consecutive transfers per account, nonces from 0: result[account][nonce]. */
export async function signTransfers(accounts: PrivateKeyAccount[], count: number): Promise<Hex[][]> {
  return Promise.all(
    accounts.map(async (account) => {
      const signed: Hex[] = []
      for (let nonce = 0; nonce < count; nonce++) signed.push(await signTransfer(account, nonce))
      return signed
    }),
  )
}

export type Mining = 'auto' | 'manual' | 'interval'

/** Makes what was sent visible (manual flashchain: evm_mine) and waits for its receipt. */
export async function settle(
  connection: Connection,
  mining: Mining,
  hash: Hex,
  timeoutMs = 15_000,
): Promise<{ status: Hex; contractAddress: Hex | null }> {
  if (mining === 'manual') await rpc(connection, 'evm_mine')
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const receipt = await rpc<{ status: Hex; contractAddress: Hex | null } | null>(connection, 'eth_getTransactionReceipt', [hash])
    if (receipt !== null) return receipt
    if (performance.now() > deadline) throw new Error(`no receipt for ${hash} after ${timeoutMs} ms`)
    await sleep(10)
  }
}

async function nonceOf(connection: Connection, address: Hex): Promise<number> {
  return Number(await rpc<Hex>(connection, 'eth_getTransactionCount', [address, 'pending']))
}

/** Deploys BenchToken from dev account 0 (the whole supply is account 0's) and checks its code is in `latest`. */
export async function deployToken(connection: Connection, mining: Mining): Promise<Hex> {
  const nonce = await nonceOf(connection, dev.address)
  const raw = await dev.signTransaction({
    chainId: CHAIN_ID,
    type: 'eip1559',
    nonce,
    data: encodeDeployData({ abi: token.abi, bytecode: token.bytecode, args: [SUPPLY] }),
    gas: 2_000_000n,
    maxFeePerGas: MAX_FEE,
    maxPriorityFeePerGas: TIP,
  })
  const hash = await rpc<Hex>(connection, 'eth_sendRawTransaction', [raw])
  const receipt = await settle(connection, mining, hash)
  const address = getContractAddress({ from: dev.address, nonce: BigInt(nonce) })
  if (receipt.status !== '0x1') throw new Error(`the token deployment failed: ${JSON.stringify(receipt)}`)
  if (receipt.contractAddress?.toLowerCase() !== address.toLowerCase())
    throw new Error(`the token is at ${receipt.contractAddress}, expected ${address}`)
  if (mining !== 'interval') {
    const code = await rpc<Hex>(connection, 'eth_getCode', [address, 'latest'])
    if (code !== token.deployedBytecode) throw new Error(`eth_getCode(token, latest) is not the deployed bytecode (${code.length} chars)`)
  }
  return address
}

/** Sends `wei` from dev account 0 to each address and waits until the last transfer is visible. */
export async function fund(connection: Connection, mining: Mining, addresses: Hex[], wei: bigint): Promise<void> {
  let nonce = await nonceOf(connection, dev.address)
  let last: Hex | undefined
  for (const address of addresses) {
    const raw = await signTransfer(dev, nonce++, address, wei)
    last = await rpc<Hex>(connection, 'eth_sendRawTransaction', [raw])
  }
  if (last !== undefined) {
    const receipt = await settle(connection, mining, last)
    if (receipt.status !== '0x1') throw new Error('funding failed')
  }
}

/** ERC20 transfer(to, amount) calldata. */
export function transferData(to: string, amount: bigint): Hex {
  return `0xa9059cbb${to.slice(2).toLowerCase().padStart(64, '0')}${amount.toString(16).padStart(64, '0')}`
}

/** ERC20 balanceOf(owner) calldata. */
export function balanceOfData(owner: string): Hex {
  return `0x70a08231${owner.slice(2).toLowerCase().padStart(64, '0')}`
}

/** A fresh pseudo-random address on every call (xorshift, seeded: the same stream for every peer). */
export function addressStream(seed: number): () => Hex {
  let x = seed >>> 0 || 1
  const word = () => {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    return x.toString(16).padStart(8, '0')
  }
  return () => `0x${word()}${word()}${word()}${word()}${word()}`
}
