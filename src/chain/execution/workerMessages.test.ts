import { describe, expect, test } from 'vitest'

import { requestOf, runMessage, stateRefOf } from './workerMessages.ts'

import type { CallRequest } from './executor.ts'
import type { Hex } from '../../hex.ts'

const from = '0x00000000000000000000000000000000000000a1' as Hex
const to = '0x00000000000000000000000000000000000000c0' as Hex

/** What the worker reads after the port's structured clone. */
const overThePort = (request: CallRequest) => structuredClone(runMessage(9, 'eth_estimateGas', { block: 3n }, 4, request))

describe('runMessage', () => {
  test("an ERC20 transfer's estimate is seven primitives, and arrives with exactly its own fields", () => {
    const request = { from, to, data: '0xa9059cbb' as Hex }
    expect(runMessage(9, 'eth_estimateGas', { block: 3n }, 4, request)).toStrictEqual([9, 'eth_estimateGas', 3n, 4, from, to, '0xa9059cbb'])
    expect(requestOf(overThePort(request))).toStrictEqual(request)
  })

  test('every field arrives as given, nested lists and `to: null` included', () => {
    const request: Required<CallRequest> = {
      from,
      to: null,
      gas: 100_000n,
      gasPrice: 3n,
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
      maxFeePerBlobGas: 2n,
      value: 5n,
      data: '0x6000',
      nonce: 7n,
      type: 3,
      accessList: [{ address: to, storageKeys: [`0x${'00'.repeat(31)}01`] }],
      authorizationList: [{ chainId: 1n, address: to, nonce: 0n, yParity: 1, r: 2n, s: 3n }],
      blobVersionedHashes: [`0x01${'00'.repeat(31)}`],
    }
    expect(requestOf(overThePort(request))).toStrictEqual(request)
  })

  test('fields left out stay out, whatever their place in the order', () => {
    expect(requestOf(overThePort({ value: 1n }))).toStrictEqual({ value: 1n })
    expect(requestOf(overThePort({ to, authorizationList: [] }))).toStrictEqual({ to, authorizationList: [] })
    expect(requestOf(overThePort({}))).toStrictEqual({})
    expect(runMessage(1, 'eth_call', { id: 2 }, 3, {})).toHaveLength(4)
  })

  test("a sealed block's state is its number (a bigint), a sent state its id (a number)", () => {
    expect(stateRefOf(structuredClone(runMessage(1, 'eth_call', { block: 0n }, 1, {})))).toStrictEqual({ block: 0n })
    expect(stateRefOf(structuredClone(runMessage(1, 'eth_call', { id: 0 }, 1, {})))).toStrictEqual({ id: 0 })
    expect(stateRefOf(runMessage(1, 'eth_call', { id: 12 }, 1, {}))).toStrictEqual({ id: 12 })
  })
})
