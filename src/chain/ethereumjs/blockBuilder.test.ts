import { createBlock } from '@ethereumjs/block'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { createVM, runTx } from '@ethereumjs/vm'
import { Account, KECCAK256_RLP, bytesToHex, createAddressFromPrivateKey, hexToBytes } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { builderHeaderData, builderRecord } from './blockBuilder.ts'
import { createEnvBlock } from '../execution/executor.ts'
import { startBuilder } from '../production/startBuilder.ts'
import { testBlockEnv } from '../testing/fixtures.ts'

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun })
const key = hexToBytes(`0x${'11'.repeat(32)}`)
const sender = createAddressFromPrivateKey(key)
const env = testBlockEnv()
const transfers = [0n, 1n, 2n].map((nonce) =>
  createFeeMarket1559Tx(
    { nonce, to: `0x${'c0'.repeat(20)}`, value: nonce + 1n, gasLimit: 21_000n, maxFeePerGas: 10n, maxPriorityFeePerGas: 2n },
    { common },
  ).sign(key),
)

/** A builder for block 1 on a fresh VM where the sender holds 1 ETH. */
async function started() {
  const vm = await createVM({ common: common.copy() })
  await vm.stateManager.putAccount(sender, new Account(0n, 10n ** 18n))
  const parent = createBlock(
    {
      header: {
        number: 0n,
        timestamp: env.timestamp - 12n,
        gasLimit: env.gasLimit,
        baseFeePerGas: env.baseFeePerGas,
        excessBlobGas: 0n,
        blobGasUsed: 0n,
        withdrawalsRoot: KECCAK256_RLP,
        parentBeaconBlockRoot: hexToBytes(env.parentBeaconBlockRoot!),
      },
    },
    { common, skipConsensusFormatValidation: true },
  )
  return { vm, builder: await startBuilder(vm, parent, env) }
}

describe('builderRecord', () => {
  test('transactions run outside the builder and recorded make the block BlockBuilder.addTransaction makes', async () => {
    const added = await started()
    for (const tx of transfers) await added.builder.addTransaction(tx, { skipHardForkValidation: true })
    const expected = await added.builder.build()

    const { vm, builder } = await started()
    const record = builderRecord(builder)
    const envBlock = createEnvBlock(env, vm.common, env.baseFeePerGas)
    for (const tx of transfers) {
      const result = await runTx(vm, { tx, block: envBlock, blockGasUsed: builder.gasUsed, skipHardForkValidation: true })
      record.add(tx, result, 0n)
    }
    expect(record.transactions).toEqual(transfers)
    expect(record.results.map((result) => result.receipt.cumulativeBlockGasUsed)).toEqual([21_000n, 42_000n, 63_000n])
    expect(builder.minerValue).toBe(added.builder.minerValue)
    const { block } = await builder.build()
    expect(block.header.gasUsed).toBe(63_000n)
    expect(bytesToHex(block.hash())).toBe(bytesToHex(expected.block.hash()))
  })
})

describe('builderHeaderData', () => {
  test("is the header the builder was started with, the parent's hash filled in", async () => {
    const { builder } = await started()
    const header = builderHeaderData(builder)
    expect(header.number).toBe(env.number)
    expect(header.timestamp).toBe(env.timestamp)
    expect(header.gasLimit).toBe(env.gasLimit)
    expect(header.parentHash).toBeInstanceOf(Uint8Array)
  })
})
