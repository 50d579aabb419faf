import { defaults, hardforks } from './config.ts'
import { systemContracts } from './systemContracts.ts'

import type { Hex } from '../../hex.ts'
import type { DevAccount } from './accounts.ts'
import type { ChainOptions, HardforkName } from './config.ts'

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

/** The genesis of a new dev chain: the system contracts, the predeploys and the funded dev accounts. */
export function devChainGenesis(
  options: Pick<ChainOptions, 'chainId' | 'hardfork' | 'blockGasLimit' | 'predeploys' | 'balance'>,
  accounts: readonly DevAccount[],
): Record<string, unknown> {
  return devGenesis({
    chainId: options.chainId ?? defaults.chainId,
    hardfork: options.hardfork ?? defaults.hardfork,
    gasLimit: options.blockGasLimit ?? defaults.blockGasLimit,
    timestamp: Math.floor(Date.now() / 1000),
    alloc: {
      ...Object.fromEntries(Object.values(systemContracts).map((contract) => [contract.address, { balance: 0n, code: contract.code }])),
      ...Object.fromEntries(
        Object.entries(options.predeploys ?? {}).map(([address, account]) => [address.toLowerCase(), { ...account, balance: account.balance ?? 0n }]),
      ),
      ...Object.fromEntries(accounts.map((account) => [account.address, { balance: options.balance ?? defaults.balance }])),
    },
  })
}
