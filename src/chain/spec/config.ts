import { availableParallelism } from 'node:os'

import type { DatabaseSync } from 'node:sqlite'

import type { Hex } from '../../hex.ts'
import type { AbiJson } from '../activity/decoder.ts'

export const hardforks = ['london', 'shanghai', 'cancun', 'prague', 'osaka'] as const
export type HardforkName = (typeof hardforks)[number]

export const miningModes = ['interval', 'manual', 'auto'] as const
/**
 * `interval`: flashblocks and blocks on their clocks. `manual`: nothing until flashchain_preconfirm or evm_mine.
 * `auto`: each transaction is sealed as it arrives (those arriving together may share a block), as anvil and
 * Hardhat do by default.
 */
export type MiningMode = (typeof miningModes)[number]

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
  /**
   * The most bytes of code a contract creation may deploy (EIP-170, 24576 by default), anvil's --code-size-limit;
   * the initcode limit (EIP-3860) is twice it, as anvil has it. Applies to every run: blocks, calls, estimates,
   * simulations, traces and the pool's door.
   */
  codeSizeLimit?: number
  /** No limit on deployed code or initcode size (anvil's --disable-code-size-limit); wins over codeSizeLimit. */
  disableCodeSizeLimit?: boolean
  /**
   * Worker threads that run eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1 and the debug_trace*
   * methods beside the main thread; 0 keeps them all on it, where nothing can stop them (docs/execution.md).
   */
  workers?: number
  /**
   * ms an eth_call, eth_estimateGas, eth_createAccessList or eth_simulateV1 may run on a worker before it is aborted
   * with geth's "execution aborted (timeout = 5s)" (geth's --rpc.evmtimeout); 0 for none. Traces have their own
   * `timeout` instead. Runs on the main thread (with `workers: 0`) cannot be.
   */
  rpcEvmTimeout?: number
  /** The most bytes a debug_trace* answer may take; a trace that would outgrow it fails with -32000 instead. */
  traceMaxBytes?: number
  /**
   * Transactions the newest sealed blocks hold decoded in memory (WHOLE_TRANSACTIONS), and the older blocks read back
   * from the store (READ_BACK_TRANSACTIONS); tests lower it.
   */
  wholeTransactions?: number
  /** Fork another chain's state at one of its blocks (docs/fork.md); --fork-url and the --fork-* options. */
  fork?: ForkOptions
  /**
   * An OP Stack chain, as Base is (docs/opstack.md): the OP Stack's predeploys in its genesis, an L1 attributes
   * deposit opening each block, the L1 data fee on every other transaction, deposits from the owner, and receipts
   * with the L1 fee fields.
   */
  opStack?: boolean
  /** Extra genesis accounts, e.g. predeployed contracts. */
  predeploys?: Record<Hex, { code: Hex; balance?: bigint; nonce?: bigint; storage?: Record<Hex, Hex> }>
  log?: (line: string) => void
  /** ABIs the log names calls and custom errors with, before the well-known ones: the project's (`--abi`). */
  logAbis?: readonly AbiJson[]
  /** Per-request detail (such as the EVM runs of each estimate); off unless given. */
  debug?: (line: string) => void
}

/** What a chain forks, as `createFlashchain({ fork })` and the --fork-* options give it. */
export type ForkOptions = {
  /** The upstream's JSON-RPC endpoint (http or https); credentials in it go as HTTP Basic authentication. */
  url: string
  /** The fork block; the upstream's latest when the fork starts, and the stored one when a data dir resumes it. */
  blockNumber?: bigint
  /** The chain id the fork answers with; the upstream's by default. */
  chainId?: bigint
  /** Times a failed upstream request is tried again (3). */
  retries?: number
  /** ms before the first retry, doubling each time (250). */
  retryBackoffMs?: number
  /**
   * The directory of the cache of what was fetched (fork-cache.sqlite in it); under the data dir by default, none
   * for an in-memory chain; `false` for none.
   */
  cacheDir?: string | false
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
  /**
   * One per core beyond the main thread's, up to 3 (each keeps its own copy of the state), and one even on a single
   * core: the EVM then never holds the thread that answers requests, and a run can be stopped.
   */
  workers: Math.max(1, Math.min(3, availableParallelism() - 1)),
  rpcEvmTimeout: 5000,
  traceMaxBytes: 32 * 1024 * 1024,
} as const
