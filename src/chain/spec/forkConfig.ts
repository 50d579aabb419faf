import { crc32 } from 'node:zlib'

import { systemContracts } from './systemContracts.ts'

import type { Common } from '@ethereumjs/common'
import type { Hex } from '../../hex.ts'
import type { ChainConfig, ForkConfig } from '../types.ts'

/** The precompiles by geth's names, each with the fork or the EIP that brings it. */
const PRECOMPILES: ReadonlyArray<[name: string, address: number, since: string | number]> = [
  ['ECREC', 0x1, 'chainstart'],
  ['SHA256', 0x2, 'chainstart'],
  ['RIPEMD160', 0x3, 'chainstart'],
  ['ID', 0x4, 'chainstart'],
  ['MODEXP', 0x5, 'byzantium'],
  ['BN254_ADD', 0x6, 'byzantium'],
  ['BN254_MUL', 0x7, 'byzantium'],
  ['BN254_PAIRING', 0x8, 'byzantium'],
  ['BLAKE2F', 0x9, 'istanbul'],
  ['KZG_POINT_EVALUATION', 0xa, 4844],
  ['BLS12_G1ADD', 0xb, 2537],
  ['BLS12_G1MSM', 0xc, 2537],
  ['BLS12_G2ADD', 0xd, 2537],
  ['BLS12_G2MSM', 0xe, 2537],
  ['BLS12_PAIRING_CHECK', 0xf, 2537],
  ['BLS12_MAP_FP_TO_G1', 0x10, 2537],
  ['BLS12_MAP_FP2_TO_G2', 0x11, 2537],
  ['P256VERIFY', 0x100, 7951],
]

const addressOf = (n: number): Hex => `0x${n.toString(16).padStart(40, '0')}`

/** Keys in code-point order, as geth's JSON encoding of a map writes them. */
function sorted(entries: [string, Hex][]): Record<string, Hex> {
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/**
 * EIP-6122's fork identifier (EIP-2124 extended to timestamps): CRC32 of the genesis hash, then of each fork block
 * and each fork time up to `time`, as 8-byte big-endian numbers, in order, once each. Forks at genesis do not count.
 */
function forkId(common: Common, genesis: { hash: Uint8Array; timestamp: bigint }, time: bigint): Hex {
  const blocks = new Set<bigint>()
  const times = new Set<bigint>()
  for (const fork of common.hardforks()) {
    if (fork.timestamp !== undefined && fork.timestamp !== null) {
      const at = BigInt(fork.timestamp)
      if (at > genesis.timestamp && at <= time) times.add(at)
    } else if (fork.block !== null && fork.block > 0) {
      blocks.add(BigInt(fork.block))
    }
  }
  let checksum = crc32(genesis.hash)
  for (const at of [...[...blocks].sort(compare), ...[...times].sort(compare)]) {
    const word = Buffer.alloc(8)
    word.writeBigUInt64BE(at)
    checksum = crc32(word, checksum)
  }
  return `0x${checksum.toString(16).padStart(8, '0')}`
}

const compare = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * EIP-7910's view of the forks scheduled by timestamp, as of the head's time: the one in force, the next one and the
 * last one (both null when nothing is scheduled). As geth, a chain before Shanghai, whose forks go by block number,
 * has no current fork to describe.
 */
export function chainConfig(
  common: Common,
  chain: { genesisHash: Uint8Array; genesisTimestamp: bigint; headTimestamp: bigint; depositContractAddress: Hex },
): ChainConfig {
  const timed = common
    .hardforks()
    .filter((fork) => fork.timestamp !== undefined && fork.timestamp !== null)
    .map((fork) => ({ name: fork.name, time: BigInt(fork.timestamp!) }))
  const genesis = { hash: chain.genesisHash, timestamp: chain.genesisTimestamp }

  function describe(fork: { name: string; time: bigint } | undefined): ForkConfig | null {
    if (fork === undefined) return null
    const rules = common.copy()
    rules.setHardfork(fork.name)
    const active = (eip: number) => rules.isActivatedEIP(eip)
    const contracts: [string, Hex][] = []
    if (active(4788)) contracts.push(['BEACON_ROOTS_ADDRESS', systemContracts.beaconRoots!.address])
    if (active(2935)) contracts.push(['HISTORY_STORAGE_ADDRESS', systemContracts.historyStorage!.address])
    if (active(7002)) contracts.push(['WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS', systemContracts.withdrawalRequests!.address])
    if (active(7251)) contracts.push(['CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS', systemContracts.consolidationRequests!.address])
    if (active(6110)) contracts.push(['DEPOSIT_CONTRACT_ADDRESS', chain.depositContractAddress])
    return {
      activationTime: fork.time <= genesis.timestamp ? 0n : fork.time,
      blobSchedule: active(4844)
        ? {
            target: Number(rules.param('target')),
            max: Number(rules.param('max')),
            baseFeeUpdateFraction: Number(rules.param('blobGasPriceUpdateFraction')),
          }
        : null,
      chainId: common.chainId(),
      forkId: forkId(common, genesis, fork.time),
      precompiles: sorted(
        PRECOMPILES.filter(([, , since]) => (typeof since === 'number' ? active(since) : rules.gteHardfork(since))).map(([name, address]) => [
          name,
          addressOf(address),
        ]),
      ),
      systemContracts: sorted(contracts),
    }
  }

  const current = timed.filter((fork) => fork.time <= chain.headTimestamp).at(-1)
  const next = timed.find((fork) => fork.time > chain.headTimestamp)
  return { current: describe(current), next: describe(next), last: next === undefined ? null : describe(timed.at(-1)) }
}
