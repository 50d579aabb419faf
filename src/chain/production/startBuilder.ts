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
export async function startBuilder(vm: VM, parent: Block, env: BlockEnv): Promise<BlockBuilder> {
  const { stateManager } = vm
  if (stateManager instanceof FlatStateManager && stateManager.base.waits === true) {
    await prefetch(systemWorkReads(stateManager.base, vm.common, env))
  }
  return buildBlock(vm, {
    parentBlock: parent,
    headerData: envHeaderData(env),
    withdrawals: vm.common.isActivatedEIP(4895) ? [] : undefined,
    blockOpts: { putBlockIntoBlockchain: false, skipConsensusFormatValidation: true },
  })
}

/** EIP-4788's and EIP-2935's ring buffers' length. */
const HISTORY_LENGTH = 8191n

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

/** The sender of system calls (EIP-4788, EIP-2935, EIP-7002, EIP-7251). */
const SYSTEM_ADDRESS = '0xfffffffffffffffffffffffffffffffffffffffe' as Hex
