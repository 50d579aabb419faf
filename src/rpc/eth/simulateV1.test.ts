import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'

import { useFlashchain } from '../../../test/support/flashchain.ts'

type SimulatedBlock = {
  blobGasUsed: string
  excessBlobGas: string
  transactions: { type: string; nonce: string; blobVersionedHashes?: string[] }[]
  calls: { status: string; returnData: string }[]
}

const from = '0x00000000000000000000000000000000000b10b1'
const target = '0x00000000000000000000000000000000000b10b2'
// BLOBHASH(0) and BLOBBASEFEE into memory words 0 and 1, RETURN both.
const returnsBlobHashAndFee = '0x5f495f524a60205260405ff3'
const versionedHash = `0x01${'ab'.repeat(31)}`
const blobCall = { from, to: target, blobVersionedHashes: [versionedHash] }
// With validation a call pays at least the base fee.
const pricedBlobCall = { ...blobCall, maxFeePerGas: '0x2' }
const stateOverrides = { [from]: { balance: '0xde0b6b3a7640000' }, [target]: { code: returnsBlobHashAndFee } }

const word = (value: bigint) => value.toString(16).padStart(64, '0')

const node = useFlashchain()
const { request, rejection } = node

describe('eth_simulateV1', () => {
  test('args: blob calls are blob transactions; BLOBHASH sees their hashes and the block counts their blob gas', async () => {
    const [first, second] = (await request('eth_simulateV1', [
      {
        blockStateCalls: [
          { blockOverrides: { baseFeePerGas: '0x1', blobBaseFee: '0x7' }, stateOverrides, calls: [{ ...pricedBlobCall, maxFeePerBlobGas: '0x7' }] },
          { calls: [{ ...pricedBlobCall, maxFeePerBlobGas: '0x7', blobVersionedHashes: [versionedHash, versionedHash] }] },
        ],
        validation: true,
        returnFullTransactions: true,
      },
    ])) as SimulatedBlock[]
    // EIP-4844: 2^17 blob gas a blob; the override is the fee the call sees, and it holds for its block only.
    expect(first).toMatchObject({
      blobGasUsed: '0x20000',
      excessBlobGas: '0x0',
      transactions: [{ type: '0x3', blobVersionedHashes: [versionedHash] }],
    })
    expect(first!.calls[0]).toMatchObject({ status: '0x1', returnData: `0x${versionedHash.slice(2)}${word(7n)}` })
    expect(second).toMatchObject({ blobGasUsed: '0x40000', excessBlobGas: '0x0' })
    expect(second!.calls[0]).toMatchObject({ status: '0x1', returnData: `0x${versionedHash.slice(2)}${word(1n)}` })
  })

  test('args: a call with an authorization list and no type is a set-code transaction, whose delegation the next call runs', async () => {
    const authority = privateKeyToAccount(generatePrivateKey())
    const authorization = await authority.signAuthorization({ address: target, chainId: 31337, nonce: 0 })
    const signed = {
      chainId: '0x7a69',
      address: target,
      nonce: '0x0',
      yParity: `0x${authorization.yParity!.toString(16)}`,
      // Quantities, as the schema wants them: no leading zeros.
      r: `0x${BigInt(authorization.r).toString(16)}`,
      s: `0x${BigInt(authorization.s).toString(16)}`,
    }
    const [block] = (await request('eth_simulateV1', [
      {
        blockStateCalls: [
          {
            stateOverrides,
            calls: [
              { from, to: from, authorizationList: [signed] },
              // The authority's code is now the designator: a call to it runs the target's code.
              { from, to: authority.address },
            ],
          },
        ],
        returnFullTransactions: true,
      },
    ])) as SimulatedBlock[]
    expect(block!.transactions.map((tx) => tx.type)).toEqual(['0x4', '0x2'])
    expect(block!.calls.map((call) => call.status)).toEqual(['0x1', '0x1'])
    expect(block!.calls[1]!.returnData).toHaveLength(2 + 128)
  })

  test('args: without validation, a blob call that names no blob fee runs', async () => {
    const [block] = (await request('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides, calls: [blobCall] }] }])) as SimulatedBlock[]
    expect(block).toMatchObject({ blobGasUsed: '0x20000', calls: [{ status: '0x1' }] })
  })

  test('args: without validation, an account at nonce 2^64 - 1 sends, and its nonce wraps to 0', async () => {
    const [block] = (await request('eth_simulateV1', [
      {
        blockStateCalls: [
          {
            stateOverrides: { [from]: { nonce: '0xffffffffffffffff' } },
            calls: [
              { from, to: target },
              { from, to: target },
            ],
          },
        ],
        returnFullTransactions: true,
      },
    ])) as SimulatedBlock[]
    expect(block!.calls).toMatchObject([{ status: '0x1' }, { status: '0x1' }])
    expect(block!.transactions.map((tx) => tx.nonce)).toEqual(['0xffffffffffffffff', '0x0'])
  })

  test('error: with validation, an account at nonce 2^64 - 1 cannot send (EIP-2681)', async () => {
    const result = await rejection('eth_simulateV1', [
      { blockStateCalls: [{ stateOverrides: { [from]: { nonce: '0xffffffffffffffff' } }, calls: [{ from, to: target }] }], validation: true },
    ])
    expect(result).toEqual({ code: -32603, message: `nonce has max value: address ${from}, nonce: 18446744073709551615` })
  })

  test('error: with validation, a blob fee cap below the blob base fee', async () => {
    const result = await rejection('eth_simulateV1', [
      {
        blockStateCalls: [
          { blockOverrides: { baseFeePerGas: '0x1', blobBaseFee: '0x8' }, stateOverrides, calls: [{ ...pricedBlobCall, maxFeePerBlobGas: '0x7' }] },
        ],
        validation: true,
      },
    ])
    expect(result).toEqual({
      code: -32603,
      message: `max fee per blob gas less than block blob gas fee: address ${from} blobGasFeeCap: 7, blobBaseFee: 8`,
    })
  })
})
