import { crc32 } from 'node:zlib'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startChain, toHex } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

describe('fees and configuration', () => {
  it('eth_baseFee is the base fee of the pending block, the next one; eth_blobBaseFee that of the newest sealed block', async () => {
    const pending = await t.rpc<{ baseFeePerGas: Hex }>('eth_getBlockByNumber', ['pending', false])
    expect(await t.rpc('eth_baseFee')).toBe(pending.baseFeePerGas)
    // A dev chain's blocks carry no blobs: the blob base fee stays at its floor, 1 wei (EIP-4844).
    expect(await t.rpc('eth_blobBaseFee')).toBe('0x1')
    // A block far below its gas target lowers the next base fee (EIP-1559); eth_baseFee follows the pending block.
    await t.wallet(1).sendTransaction({ to: t.accounts[2]!.address, value: 1n })
    await t.mine()
    const after = await t.rpc<{ baseFeePerGas: Hex }>('eth_getBlockByNumber', ['pending', false])
    expect(BigInt(after.baseFeePerGas)).toBeLessThan(BigInt(pending.baseFeePerGas))
    expect(await t.rpc('eth_baseFee')).toBe(after.baseFeePerGas)
  })

  it('eth_config describes the dev chain: Osaka in force since genesis, nothing scheduled after it', async () => {
    const config = await t.rpc<{ current: Record<string, unknown>; next: unknown; last: unknown }>('eth_config')
    expect(config.next).toBeNull()
    expect(config.last).toBeNull()
    expect(config.current).toMatchObject({
      activationTime: 0,
      blobSchedule: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      chainId: toHex(31337),
      precompiles: expect.objectContaining({
        ECREC: '0x0000000000000000000000000000000000000001',
        P256VERIFY: '0x0000000000000000000000000000000000000100',
      }),
      systemContracts: {
        BEACON_ROOTS_ADDRESS: '0x000f3df6d732807ef1319fb7b8bb8522d0beac02',
        CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS: '0x0000bbddc7ce488642fb579f8b00f3a590007251',
        DEPOSIT_CONTRACT_ADDRESS: '0x00000000219ab540356cbb839cbe05303d7705fa',
        HISTORY_STORAGE_ADDRESS: '0x0000f90827f1c53a10cb7a02335b175320002935',
        WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS: '0x00000961ef480eb55e80d19ad83579a64c007002',
      },
    })
    expect(Object.keys(config.current.precompiles as object)).toHaveLength(18)
    // Every fork is at genesis, so the fork id is the checksum of the genesis hash alone (EIP-2124).
    const genesis = await t.rpc<{ hash: Hex }>('eth_getBlockByNumber', ['0x0', false])
    expect(config.current.forkId).toBe(
      `0x${crc32(Buffer.from(genesis.hash.slice(2), 'hex'))
        .toString(16)
        .padStart(8, '0')}`,
    )
  })
})
