import { buildBlock } from '@ethereumjs/vm'

import type { Block, HeaderData } from '@ethereumjs/block'
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
export function startBuilder(vm: VM, parent: Block, env: BlockEnv): Promise<BlockBuilder> {
  return buildBlock(vm, {
    parentBlock: parent,
    headerData: envHeaderData(env),
    withdrawals: vm.common.isActivatedEIP(4895) ? [] : undefined,
    blockOpts: { putBlockIntoBlockchain: false, skipConsensusFormatValidation: true },
  })
}
