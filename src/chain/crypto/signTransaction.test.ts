import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'

import { createChainSpec } from '../spec/chainSpec.ts'
import { fundedGenesis } from '../testing/fixtures.ts'
import { signTransaction } from './signTransaction.ts'

import type { Hex } from '../../hex.ts'
import type { UnsignedTransaction } from '../types.ts'

const key = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as Hex
const viem = privateKeyToAccount(key)
const { common } = createChainSpec(fundedGenesis([]))
const to = '0x000000000000000000000000000000000000beef' as Hex
const accessList = [{ address: to, storageKeys: [`0x${'00'.repeat(31)}07` as Hex] }]

describe('signTransaction: libsecp256k1 through ethereumjs, byte for byte what viem signs', () => {
  const transactions: [string, UnsignedTransaction][] = [
    ['legacy (EIP-155)', { type: 'legacy', chainId: 31337, nonce: 0, to, value: 1n, gas: 21_000n, gasPrice: 7n }],
    ['legacy contract creation', { type: 'legacy', chainId: 31337, nonce: 3, data: '0x6001600055', gas: 90_000n, gasPrice: 1n }],
    ['EIP-2930', { type: 'eip2930', chainId: 31337, nonce: 1, to, data: '0xabcdef', gas: 50_000n, gasPrice: 9n, accessList }],
    [
      'EIP-1559',
      {
        type: 'eip1559',
        chainId: 31337,
        nonce: 2,
        to,
        value: 10n ** 18n,
        gas: 21_000n,
        maxFeePerGas: 3n * 10n ** 9n,
        maxPriorityFeePerGas: 10n ** 9n,
      },
    ],
    [
      'EIP-1559 with an access list',
      { type: 'eip1559', chainId: 31337, nonce: 4, to, gas: 60_000n, maxFeePerGas: 5n, maxPriorityFeePerGas: 1n, accessList },
    ],
  ]
  test.each(transactions)('%s', async (_, transaction) => {
    expect(signTransaction(common, transaction, key)).toBe(await viem.signTransaction(transaction as Parameters<typeof viem.signTransaction>[0]))
  })

  test('refuses nothing the pool refuses in its own words: gas past EIP-7825’s cap, initcode past EIP-3860’s limit', async () => {
    const large: UnsignedTransaction = { type: 'eip1559', chainId: 31337, nonce: 0, to, gas: 25_000_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }
    expect(signTransaction(common, large, key)).toBe(await viem.signTransaction(large as Parameters<typeof viem.signTransaction>[0]))
    const initcode: UnsignedTransaction = {
      type: 'eip1559',
      chainId: 31337,
      nonce: 0,
      data: `0x${'00'.repeat(50_000)}`,
      gas: 10_000_000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
    }
    expect(signTransaction(common, initcode, key)).toBe(await viem.signTransaction(initcode as Parameters<typeof viem.signTransaction>[0]))
  })

  test('EIP-7702, with a signed authorization', async () => {
    const authorization = await viem.signAuthorization({ address: to, chainId: 31337, nonce: 6 })
    const transaction: UnsignedTransaction = {
      type: 'eip7702',
      chainId: 31337,
      nonce: 5,
      to: viem.address,
      gas: 100_000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
      authorizationList: [
        {
          address: authorization.address,
          chainId: authorization.chainId,
          nonce: authorization.nonce,
          yParity: authorization.yParity!,
          r: `0x${BigInt(authorization.r).toString(16)}`,
          s: `0x${BigInt(authorization.s).toString(16)}`,
        },
      ],
    }
    expect(signTransaction(common, transaction, key)).toBe(await viem.signTransaction(transaction as Parameters<typeof viem.signTransaction>[0]))
  })
})
