import { bytesToHex } from '@ethereumjs/util'

import { keccak256 } from '../crypto/keccak.ts'

import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { Hex } from '../../hex.ts'
import type { BlockEnv } from '../types.ts'
import type { SealedBlock } from './types.ts'

const ZERO_HASH = `0x${'00'.repeat(32)}` as Hex
const ZERO_ADDRESS = `0x${'00'.repeat(20)}` as Hex

/** The environment of the block after `parent`, as a proposer would choose it at `now` (ms). */
export function nextEnv(parent: Block, common: Common, now: number, gasLimit: bigint): BlockEnv {
  const header = parent.header
  const seconds = BigInt(Math.floor(now / 1000))
  const timestamp = seconds > header.timestamp ? seconds : header.timestamp + 1n
  const number = header.number + 1n
  const child = common.copy()
  child.setHardforkBy({ blockNumber: number, timestamp })
  return {
    number,
    timestamp,
    gasLimit,
    baseFeePerGas: child.isActivatedEIP(1559)
      ? header.baseFeePerGas === undefined
        ? child.param('initialBaseFee')
        : header.calcNextBaseFee()
      : undefined,
    coinbase: ZERO_ADDRESS,
    // A dev chain has no beacon chain; a hash of the parent is as unpredictable as it needs to be.
    prevRandao: bytesToHex(keccak256(parent.hash())) as Hex,
    excessBlobGas: child.isActivatedEIP(4844) ? (header.excessBlobGas === undefined ? 0n : header.calcNextExcessBlobGas(child)) : undefined,
    parentHash: bytesToHex(parent.hash()) as Hex,
    parentBeaconBlockRoot: child.isActivatedEIP(4788) ? ZERO_HASH : undefined,
  }
}

/** The environment a block header states. */
export function headerEnv(block: Block): BlockEnv {
  const header = block.header
  return {
    number: header.number,
    timestamp: header.timestamp,
    gasLimit: header.gasLimit,
    baseFeePerGas: header.baseFeePerGas,
    coinbase: header.coinbase.toString() as Hex,
    prevRandao: bytesToHex(header.mixHash) as Hex,
    excessBlobGas: header.excessBlobGas,
    parentHash: bytesToHex(header.parentHash) as Hex,
    parentBeaconBlockRoot: header.parentBeaconBlockRoot === undefined ? undefined : (bytesToHex(header.parentBeaconBlockRoot) as Hex),
  }
}

/** The environment with the timestamp it was given, if that is after the parent's; as computed otherwise. */
export function withTimestamp(env: BlockEnv, parent: SealedBlock, timestamp: bigint | undefined): BlockEnv {
  if (timestamp !== undefined && timestamp > parent.block.header.timestamp) env.timestamp = timestamp
  return env
}

/** A block's environment as a flashblocks stream states it (Base's `base`): all but what the parent alone fixes. */
export type StatedEnv = Omit<BlockEnv, 'excessBlobGas' | 'baseFeePerGas' | 'parentBeaconBlockRoot'> & {
  baseFeePerGas: bigint
  parentBeaconBlockRoot: Hex
}

/**
 * The environment of a block another node began on `parent` (a replica's; Producer.follow): as stated, with the
 * excess blob gas the parent fixes, and without the fields its hardfork does not have (the stream sends zeros).
 */
export function followedEnv(parent: Block, common: Common, stated: StatedEnv): BlockEnv {
  const next = nextEnv(parent, common, Number(stated.timestamp) * 1000, stated.gasLimit)
  return {
    ...stated,
    excessBlobGas: next.excessBlobGas,
    baseFeePerGas: next.baseFeePerGas === undefined ? undefined : stated.baseFeePerGas,
    parentBeaconBlockRoot: next.parentBeaconBlockRoot === undefined ? undefined : stated.parentBeaconBlockRoot,
  }
}
