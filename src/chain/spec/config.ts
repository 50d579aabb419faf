import { pbkdf2Sync } from 'node:crypto'
import { availableParallelism } from 'node:os'

import { HDKey } from '@scure/bip32'
import { validateMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { bytesToHex, hexToBytes, privateToAddress } from '@ethereumjs/util'

import type { DatabaseSync } from 'node:sqlite'

import type { Hex } from '../state/types.ts'

export const hardforks = ['london', 'shanghai', 'cancun', 'prague', 'osaka'] as const
export type HardforkName = (typeof hardforks)[number]

export type MiningMode = 'interval' | 'manual'

export type ChainOptions = {
  chainId?: bigint
  hardfork?: HardforkName
  /** ms between sealed blocks. */
  blockTime?: number
  /** ms between flashblocks (pre-confirmations). */
  flashblockInterval?: number
  mining?: MiningMode
  /** Where the chain persists; `undefined` keeps everything in memory. */
  dataDir?: string
  /** An open database to use instead of opening one from `dataDir`; the caller closes it. */
  database?: DatabaseSync
  /** Wipe `dataDir` first. */
  fresh?: boolean
  accounts?: number
  mnemonic?: string
  /** Dev accounts by private key, instead of the mnemonic's. */
  privateKeys?: Hex[]
  /** Wei per dev account. */
  balance?: bigint
  /** A geth-style genesis.json (parsed JSON); replaces the dev genesis. */
  genesis?: unknown
  /** Back-to-back RLP blocks imported at start. */
  importBlocks?: Uint8Array
  /** Error code of "execution reverted": -32000, or 3 as geth. */
  revertCode?: number
  blockGasLimit?: bigint
  /** geth's RPCGasCap: the most gas eth_call and eth_estimateGas may use. */
  rpcGasCap?: bigint
  /** Worker threads that answer eth_call and eth_estimateGas beside the main thread; 0 keeps them all on it. */
  workers?: number
  /**
   * Transactions the newest sealed blocks hold decoded in memory (WHOLE_TRANSACTIONS), and the older blocks read back
   * from the store (READ_BACK_TRANSACTIONS); tests lower it.
   */
  wholeTransactions?: number
  /** Extra genesis accounts, e.g. predeployed contracts. */
  predeploys?: Record<Hex, { code: Hex; balance?: bigint; nonce?: bigint; storage?: Record<Hex, Hex> }>
  log?: (line: string) => void
  /** Per-request detail (such as the EVM runs of each estimate); off unless given. */
  debug?: (line: string) => void
}

export const DEFAULT_MNEMONIC = 'test test test test test test test test test test test junk'

export const defaults = {
  chainId: 31337n,
  hardfork: 'osaka',
  blockTime: 2000,
  flashblockInterval: 200,
  mining: 'interval',
  accounts: 10,
  mnemonic: DEFAULT_MNEMONIC,
  balance: 10_000n * 10n ** 18n,
  revertCode: -32000,
  blockGasLimit: 30_000_000n,
  rpcGasCap: 50_000_000n,
  /** One per core beyond the main thread's, up to 3 (each keeps its own copy of the state). */
  workers: Math.min(3, availableParallelism() - 1),
} as const

export type DevAccount = { address: Hex; privateKey: Hex }

export function keyAccount(privateKey: Hex): DevAccount {
  return { address: bytesToHex(privateToAddress(hexToBytes(privateKey))) as Hex, privateKey }
}

/** BIP-44 accounts m/44'/60'/0'/0/i, as anvil and Hardhat derive them. */
export function deriveAccounts(mnemonic: string, count: number): DevAccount[] {
  if (!validateMnemonic(mnemonic, wordlist)) throw new Error('the mnemonic is not a valid English BIP-39 mnemonic')
  // BIP-39's seed, with Node's native PBKDF2: the same bytes as @scure/bip39's, in a fraction of the start-up time.
  const seed = pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512')
  const parent = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0")
  return Array.from({ length: count }, (_, index) => {
    return keyAccount(bytesToHex(parent.deriveChild(index).privateKey!) as Hex)
  })
}

const blobSchedules = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
  osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
}

/** The dev chain as a geth-style genesis, so dev and imported chains take one path. */
export function devGenesis(options: {
  chainId: bigint
  hardfork: HardforkName
  gasLimit: bigint
  timestamp: number
  alloc: Record<Hex, { balance: bigint; code?: Hex; nonce?: bigint; storage?: Record<Hex, Hex> }>
}): Record<string, unknown> {
  const order = hardforks.indexOf(options.hardfork)
  const atTime = (fork: HardforkName) => (hardforks.indexOf(fork) <= order ? 0 : undefined)
  const config: Record<string, unknown> = {
    chainId: options.chainId,
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
    // A dev chain is proof-of-stake from genesis: no difficulty, prevRandao in mixHash.
    mergeNetsplitBlock: 0,
    terminalTotalDifficulty: 0,
  }
  if (atTime('shanghai') !== undefined) config.shanghaiTime = 0
  const blobSchedule: Record<string, unknown> = {}
  for (const fork of ['cancun', 'prague', 'osaka'] as const) {
    if (atTime(fork) === undefined) continue
    config[`${fork}Time`] = 0
    blobSchedule[fork] = blobSchedules[fork]
  }
  if (Object.keys(blobSchedule).length > 0) config.blobSchedule = blobSchedule

  const alloc: Record<string, unknown> = {}
  for (const [address, account] of Object.entries(options.alloc)) {
    alloc[address] = {
      balance: `0x${account.balance.toString(16)}`,
      ...(account.code === undefined ? {} : { code: account.code }),
      ...(account.nonce === undefined ? {} : { nonce: `0x${account.nonce.toString(16)}` }),
      ...(account.storage === undefined ? {} : { storage: account.storage }),
    }
  }
  return {
    config,
    nonce: '0x0',
    timestamp: `0x${options.timestamp.toString(16)}`,
    extraData: '0x',
    gasLimit: `0x${options.gasLimit.toString(16)}`,
    difficulty: '0x0',
    mixHash: `0x${'00'.repeat(32)}`,
    coinbase: `0x${'00'.repeat(20)}`,
    baseFeePerGas: '0x3b9aca00',
    alloc,
  }
}
