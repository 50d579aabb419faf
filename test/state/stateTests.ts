/**
 * Runs ethereum/tests GeneralStateTests through flashchain's own execution path: the Common the chain builds from a
 * genesis (with its keccak, ecrecover and KZG), the flat state manager, the VM as the block producer runs it (with
 * the jump analysis cache), and the Merkle trie that seals our blocks. Each case's post-state root and logs hash are compared with the filled ones.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

import { RLP } from '@ethereumjs/rlp'
import { createTxFromRLP } from '@ethereumjs/tx'
import { Account, Address, hexToBytes, utf8ToBytes } from '@ethereumjs/util'
import { createVM, runTx } from '@ethereumjs/vm'

import { keccak256 } from '../../src/chain/crypto/keccak.ts'
import { createBlockchain, createEnvBlock } from '../../src/chain/execution/executor.ts'
import { cacheJumpAnalysis } from '../../src/chain/ethereumjs/jumpAnalysis.ts'
import { createChainSpec } from '../../src/chain/spec/chainSpec.ts'
import { devGenesis } from '../../src/chain/spec/devGenesis.ts'
import { createGenesis } from '../../src/chain/state/genesis.ts'
import { createOverlay } from '../../src/chain/state/overlay.ts'
import { FlatStateManager } from '../../src/chain/state/stateManager.ts'
import { emptyState } from '../../src/chain/testing/fixtures.ts'
import { bytesToHex } from '../../src/hex.ts'

import type { VM } from '@ethereumjs/vm'
import type { HardforkName } from '../../src/chain/spec/config.ts'
import type { StateReader } from '../../src/chain/state/types.ts'
import type { BlockEnv } from '../../src/chain/types.ts'
import type { Hex } from '../../src/hex.ts'

export const FIXTURES = resolve(import.meta.dirname, '../conformance/ethereum-tests/GeneralStateTests')

/**
 * Performance tests that burn billions of gas (loopMul alone runs 9.2 billion), left out unless --slow is given, as
 * revm, reth and the execution-specs leave them out of their default runs.
 */
export const SLOW_FILES = [
  'VMTests/vmPerformance/loopExp.json',
  'VMTests/vmPerformance/loopMul.json',
  'stTimeConsuming/CALLBlake2f_MaxRounds.json',
  'stTimeConsuming/static_Call50000_sha256.json',
]

/** The post-merge forks the fixtures fill, by the name of the dev chain's hardfork that has their rules. */
export const FORKS: Record<string, HardforkName> = { Paris: 'london', Shanghai: 'shanghai', Cancun: 'cancun' }

type Filled = {
  env: Record<string, Hex | undefined>
  pre: Record<string, unknown>
  post: Record<string, { hash: Hex; logs: Hex; txbytes: Hex; expectException?: string; indexes: { data: number; gas: number; value: number } }[]>
}

export type CaseResult = {
  /** `file > test [fork data/gas/value]` */
  name: string
  pass: boolean
  /** What went wrong, or for a rejected transaction, the EVM's reason. */
  detail?: string
  ms: number
}

/** keccak256(rlp([])): the logs hash of a transaction that logged nothing. */
const NO_LOGS_HASH = bytesToHex(keccak256(RLP.encode([])))
/** BLOCKHASH in a state test: keccak256 of the block number in decimal, as geth's test harness answers it. */
const testBlockHash = (number: bigint) => keccak256(utf8ToBytes(number.toString()))

export type StateTestRunner = { runFile(path: string, label: string): Promise<CaseResult[]> }

export async function createStateTestRunner(): Promise<StateTestRunner> {
  // As the chain and every execution worker do at start.
  if (!(await cacheJumpAnalysis())) throw new Error('the jump analysis cache could not be installed')
  const vms = new Map<string, { vm: VM; stateManager: FlatStateManager }>()

  /** One VM per fork, reused across cases as the executor reuses its pooled VMs. */
  async function vmFor(fork: string) {
    let entry = vms.get(fork)
    if (entry === undefined) {
      const { common } = specOf(FORKS[fork]!)
      const stateManager = new FlatStateManager(emptyState)
      const vm = await createVM({ common, stateManager, blockchain: createBlockchain(testBlockHash) })
      vms.set(fork, (entry = { vm, stateManager }))
    }
    return entry
  }

  async function runFile(path: string, label: string): Promise<CaseResult[]> {
    const results: CaseResult[] = []
    const tests = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Filled>
    for (const [testName, test] of Object.entries(tests)) {
      for (const [fork, cases] of Object.entries(test.post)) {
        if (FORKS[fork] === undefined) continue
        const { vm, stateManager } = await vmFor(fork)
        const pre = await createGenesis(specOf(FORKS[fork]!, test.pre))
        const preState = createOverlay(pre.diff, emptyState)
        const env = blockEnv(test.env)
        for (const expected of cases) {
          const { data, gas, value } = expected.indexes
          const name = `${label} > ${testName} [${fork} d${data} g${gas} v${value}]`
          const started = performance.now()
          const outcome = await runCase(vm, stateManager, preState, env, expected.txbytes)
          const roots = await pre.trie.preview(outcome.writes, createOverlay(outcome.writes, preState))
          stateManager.reset(emptyState)
          const root = bytesToHex(roots.root)
          const failures: string[] = []
          if (root !== expected.hash) failures.push(`state root ${root}, expected ${expected.hash}`)
          if (outcome.logsHash !== expected.logs) failures.push(`logs hash ${outcome.logsHash}, expected ${expected.logs}`)
          if (expected.expectException !== undefined && outcome.rejected === undefined) {
            failures.push(`the transaction ran, expected ${expected.expectException}`)
          }
          if (expected.expectException === undefined && outcome.rejected !== undefined) failures.push(`rejected: ${outcome.rejected}`)
          results.push({
            name,
            pass: failures.length === 0,
            detail: failures.length > 0 ? failures.join('; ') : outcome.rejected,
            ms: performance.now() - started,
          })
        }
      }
    }
    return results
  }

  return { runFile }
}

/** Mainnet's chain id at the fork's rules, with `alloc` as the state: a genesis, built as the chain builds its own. */
function specOf(hardfork: HardforkName, alloc: Record<string, unknown> = {}) {
  return createChainSpec({ ...devGenesis({ chainId: 1n, hardfork, gasLimit: 30_000_000n, timestamp: 0, alloc: {} }), alloc })
}

function blockEnv(env: Filled['env']): BlockEnv {
  const quantity = (value: Hex | undefined) => (value === undefined ? undefined : BigInt(value))
  return {
    number: BigInt(env.currentNumber!),
    timestamp: BigInt(env.currentTimestamp!),
    gasLimit: BigInt(env.currentGasLimit!),
    baseFeePerGas: quantity(env.currentBaseFee),
    coinbase: env.currentCoinbase!,
    prevRandao: env.currentRandom ?? `0x${'00'.repeat(32)}`,
    excessBlobGas: quantity(env.currentExcessBlobGas),
    parentHash: env.previousHash ?? `0x${'00'.repeat(32)}`,
    parentBeaconBlockRoot: env.currentBeaconRoot,
  }
}

/**
 * Runs one signed transaction as the block producer does. A transaction that cannot be decoded or included leaves
 * the state as it was, except that the coinbase is touched: geth's test harness credits it with nothing, which
 * removes it if it is empty (EIP-161).
 */
async function runCase(vm: VM, stateManager: FlatStateManager, preState: StateReader, env: BlockEnv, txbytes: Hex) {
  stateManager.reset(preState)
  const coinbase = new Address(hexToBytes(env.coinbase))
  await vm.evm.journal.putAccount(coinbase, (await stateManager.getAccount(coinbase)) ?? new Account())
  let rejected: string | undefined
  let logsHash = NO_LOGS_HASH
  try {
    const tx = createTxFromRLP(hexToBytes(txbytes), { common: vm.common, allowUnlimitedInitCodeSize: false })
    if (tx.gasLimit > env.gasLimit) throw new Error('tx has a higher gas limit than the block')
    const block = createEnvBlock(env, vm.common, env.baseFeePerGas)
    const result = await runTx(vm, { tx, block, skipHardForkValidation: true })
    logsHash = bytesToHex(keccak256(RLP.encode(result.receipt.logs)))
  } catch (error) {
    rejected = error instanceof Error ? error.message : String(error)
  }
  await vm.evm.journal.cleanup()
  return { writes: stateManager.writes(), logsHash, rejected }
}
