import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import { hexToBytes } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { chainConfig } from './forkConfig.ts'
import { createChainSpec } from './chainSpec.ts'
import { parseGenesisJsonText } from './genesis.ts'

const fixtures = join(import.meta.dirname, '../../../test/conformance/execution-apis/tests')
const spec = createChainSpec(parseGenesisJsonText(readFileSync(join(fixtures, 'genesis.json'), 'utf8')))
/** The genesis hash the execution-apis chain's block 1 names as its parent. */
const genesisHash = hexToBytes('0x44fd89d504659cd58f48f4796b77a7e7012cf296a2409afa2f6c3cb99b5b3d99')

const at = (headTimestamp: bigint) =>
  chainConfig(spec.common, { genesisHash, genesisTimestamp: 0n, headTimestamp, depositContractAddress: spec.depositContractAddress })

describe('chainConfig', () => {
  test('default: the fork in force at the head, the next one and the last one, each with its own rules', () => {
    const { current, next, last } = at(460n)
    expect([current?.activationTime, next?.activationTime, last?.activationTime]).toEqual([450n, 480n, 540n])
    expect(current?.blobSchedule).toEqual({ target: 6, max: 9, baseFeeUpdateFraction: 5_007_716 })
    expect(last?.blobSchedule).toEqual({ target: 14, max: 21, baseFeeUpdateFraction: 11_684_671 })
    // P256VERIFY (EIP-7951) comes with Osaka.
    expect(current?.precompiles.P256VERIFY).toBeUndefined()
    expect(next?.precompiles.P256VERIFY).toBe('0x0000000000000000000000000000000000000100')
    expect(Object.keys(current!.systemContracts)).toEqual([
      'BEACON_ROOTS_ADDRESS',
      'CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS',
      'DEPOSIT_CONTRACT_ADDRESS',
      'HISTORY_STORAGE_ADDRESS',
      'WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS',
    ])
    // The last fork's id is the one geth reports for this chain once it is in force (the eth_config fixture).
    expect(last?.forkId).toBe('0xe272ecbe')
    expect(at(540n).current).toEqual(last)
  })

  test('the fork id takes in each fork up to the one it describes, and changes with each', () => {
    const ids = [390n, 420n, 450n, 480n, 510n, 540n].map((time) => at(time).current!.forkId)
    expect(new Set(ids).size).toBe(6)
    expect(at(419n).current).toEqual(at(390n).current)
  })

  test('with nothing scheduled after the head, next and last are null; before Shanghai there is no current fork', () => {
    expect(at(600n)).toMatchObject({ next: null, last: null })
    expect(at(389n).current).toBeNull()
    expect(at(389n).next?.activationTime).toBe(390n)
    expect(at(389n).next?.blobSchedule).toBeNull()
    expect(at(389n).next?.systemContracts).toEqual({})
  })
})
