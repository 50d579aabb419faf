import { buildBlock } from '@ethereumjs/vm'

import { prefetch } from '../state/miss.ts'
import { FlatStateManager } from '../state/stateManager.ts'
import { systemContracts } from '../spec/systemContracts.ts'

import type { Block, HeaderData } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { StateReader } from '../state/types.ts'
import type { Hex } from '../../hex.ts'
import type { BlockBuilder, VM } from '@ethereumjs/vm'
import type { BlockEnv } from '../types.ts'

/** The header fields a block's environment sets; the roots and what execution sums up come later. */
export function envHeaderData(env: BlockEnv): HeaderData {
  return {
    number: env.number,
    timestamp: env.timestamp,
    gasLimit: env.gasLimit,
    baseFeePerGas: env.baseFeePerGas,
    coinbase: env.coinbase,
    mixHash: env.prevRandao,
    difficulty: 0n,
    excessBlobGas: env.excessBlobGas,
    parentBeaconBlockRoot: env.parentBeaconBlockRoot,
  }
}

/**
 * A builder for a block on `parent` with environment `env`, as the producer and eth_simulateV1 start one: the
 * system calls (EIP-4788, EIP-2935) run, and the header is not checked against consensus rules. Both run the
 * transactions themselves and record them in the builder (ethereumjs/blockBuilder.ts).
 */
export async function startBuilder(vm: VM, parent: Block, env: BlockEnv, lookahead?: SystemWorkLookahead): Promise<BlockBuilder> {
  const { stateManager } = vm
  if (stateManager instanceof FlatStateManager && stateManager.base.waits === true) {
    await prefetch(systemWorkReads(stateManager.base, vm.common, env))
    lookahead?.(stateManager.base, vm.common, env)
  }
  return buildBlock(vm, {
    parentBlock: parent,
    headerData: envHeaderData(env),
    withdrawals: vm.common.isActivatedEIP(4895) ? [] : undefined,
    blockOpts: { putBlockIntoBlockchain: false, skipConsensusFormatValidation: true },
  })
}

/**
 * On a fork, what the block at `env` reads for its system work and the lookahead's window after it, fetched in the
 * background: a new fork's first transaction then waits for none of it.
 */
export function prefetchSystemWork(state: StateReader, common: Common, env: BlockEnv): void {
  if (state.waits !== true) return
  prefetch(systemWorkReads(state, common, env)).catch(() => {})
  createSystemWorkLookahead()(state, common, env)
}

/** EIP-4788's and EIP-2935's ring buffers' length. */
const HISTORY_LENGTH = 8191n

/**
 * On a fork, each block's system work writes ring-buffer slots never written before (EIP-4788's by timestamp,
 * EIP-2935's by number), which the EVM reads first: one upstream round trip per block, before its first transaction.
 * A lookahead fetches them a window of blocks ahead, in the background, and again once half the window is used: a
 * request per half window of blocks, off the path of any transaction.
 */
export type SystemWorkLookahead = (state: StateReader, common: Common, env: BlockEnv) => void

/** Seconds and blocks the lookahead covers: 16, past most blocks' gaps, for 48 calls a window at most. */
const LOOKAHEAD = 16n

export function createSystemWorkLookahead(): SystemWorkLookahead {
  let timestamps = -1n
  let numbers = -1n
  return (state, common, env) => {
    const reads: (() => unknown)[] = []
    if (common.isActivatedEIP(4788) && env.timestamp + LOOKAHEAD / 2n > timestamps) {
      const { address } = systemContracts.beaconRoots!
      for (let at = bigMax(timestamps + 1n, env.timestamp + 1n); at <= env.timestamp + LOOKAHEAD; at++) {
        const slot = at % HISTORY_LENGTH
        reads.push(
          () => state.storage(address, word(slot)),
          () => state.storage(address, word(slot + HISTORY_LENGTH)),
        )
      }
      timestamps = env.timestamp + LOOKAHEAD
    }
    if (common.isActivatedEIP(2935) && env.number + LOOKAHEAD / 2n > numbers) {
      const { address } = systemContracts.historyStorage!
      for (let at = bigMax(numbers + 1n, env.number + 1n); at <= env.number + LOOKAHEAD; at++) {
        reads.push(() => state.storage(address, word((at - 1n) % HISTORY_LENGTH)))
      }
      numbers = env.number + LOOKAHEAD
    }
    // In the background: a failure here is a block's own read to report, when it comes to it.
    if (reads.length > 0) prefetch(reads).catch(() => {})
  }
}

const bigMax = (a: bigint, b: bigint) => (a > b ? a : b)

const word = (value: bigint): Hex => `0x${value.toString(16).padStart(64, '0')}`

/**
 * What a block's system work reads, known before it runs: the system address and the fee recipient; EIP-4788's
 * two slots for this timestamp; EIP-2935's slot for the parent; the EIP-7002 and EIP-7251 queues' four counters. On a
 * fork each would be one upstream request after another as the calls run into them; read first, they are one.
 */
function systemWorkReads(state: StateReader, common: Common, env: BlockEnv): (() => unknown)[] {
  const reads: (() => unknown)[] = [() => state.account(SYSTEM_ADDRESS), () => state.account(env.coinbase.toLowerCase() as Hex)]
  const contract = (eip: number, address: Hex, slots: bigint[]) => {
    if (!common.isActivatedEIP(eip)) return
    reads.push(() => state.account(address))
    for (const slot of slots) reads.push(() => state.storage(address, word(slot)))
  }
  const beaconSlot = env.timestamp % HISTORY_LENGTH
  contract(4788, systemContracts.beaconRoots!.address, [beaconSlot, beaconSlot + HISTORY_LENGTH])
  contract(2935, systemContracts.historyStorage!.address, [(env.number - 1n) % HISTORY_LENGTH])
  contract(7002, systemContracts.withdrawalRequests!.address, [0n, 1n, 2n, 3n])
  contract(7251, systemContracts.consolidationRequests!.address, [0n, 1n, 2n, 3n])
  return reads
}

/** The address system calls come from (EIP-4788, EIP-2935, EIP-7002, EIP-7251). */
export const SYSTEM_ADDRESS = '0xfffffffffffffffffffffffffffffffffffffffe' as Hex
