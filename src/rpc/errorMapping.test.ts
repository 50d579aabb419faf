import { describe, expect, test } from 'vitest'

import * as chain from '../chain/errors.ts'
import * as wallet from '../wallet/errors.ts'
import { toRpcError } from './errorMapping.ts'
import { InvalidParamsError } from './errors.ts'

const address = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const wire = (error: unknown, revertCode = -32000) => toRpcError(error, { revertCode })?.toJSON()

describe('toRpcError', () => {
  test('default: a wire error is answered as it is', () => {
    expect(wire(new InvalidParamsError('empty request'))).toEqual({ code: -32602, message: 'empty request' })
  })

  test('a revert takes the chain’s revert code', () => {
    const reverted = new chain.ExecutionRevertedError({ reason: 'nope', data: '0x08c379a0' })
    expect(wire(reverted)).toEqual({ code: -32000, message: 'execution reverted: nope', data: '0x08c379a0' })
    expect(wire(reverted, 3)).toEqual({ code: 3, message: 'execution reverted: nope', data: '0x08c379a0' })
  })

  test('a rejected transaction in geth’s words', () => {
    const tooLow = new chain.TransactionRejectedError({ kind: 'nonceTooLow', address, txNonce: 0n, stateNonce: 1n })
    expect(wire(tooLow)).toEqual({ code: -32000, message: `nonce too low: address ${address}, tx: 0 state: 1` })
    const initcode = { kind: 'initcodeTooLarge', size: 49_153n, limit: 49_152n } as const
    expect(wire(new chain.TransactionRejectedError({ ...initcode, by: 'pool' }))?.message).toBe(
      'max initcode size exceeded: code size 49153, limit 49152',
    )
    expect(wire(new chain.TransactionRejectedError({ ...initcode, by: 'execution' }))?.message).toBe(
      'max initcode size exceeded: code size 49153 limit 49152',
    )
  })

  test('a rejected simulation with eth_simulateV1’s code', () => {
    const tooLow = new chain.SimulationRejectedError({ kind: 'nonceTooLow', address, txNonce: 0n, stateNonce: 1n })
    expect(wire(tooLow)).toEqual({ code: -38010, message: `nonce too low: address ${address}, tx: 0 state: 1` })
    expect(wire(new chain.SimulationRejectedError({ kind: 'tooManyBlocks' }))).toEqual({ code: -38026, message: 'too many blocks' })
  })

  test('an invalid input names the argument it comes in as, or none', () => {
    expect(wire(new chain.InvalidInputError('typed data must be an object', { input: 'typedData' }))).toEqual({
      code: -32602,
      message: 'invalid argument 1: typed data must be an object',
    })
    expect(wire(new chain.InvalidInputError('options.address: no contract code at 0x01', { input: 'asset' }))?.message).toBe(
      'invalid params: options.address: no contract code at 0x01',
    )
    expect(wire(new chain.InvalidInputError('empty input'))).toEqual({ code: -32602, message: 'empty input' })
  })

  test('a timeout: geth’s words for a call, and for a trace', () => {
    expect(wire(new chain.ExecutionTimeoutError(5000, 'call'))).toEqual({ code: -32000, message: 'execution aborted (timeout = 5s)' })
    expect(wire(new chain.ExecutionTimeoutError(300, 'trace'))).toEqual({ code: -32000, message: 'execution timeout' })
  })

  test('a fork upstream’s failure names the upstream and what failed', () => {
    const failed = new chain.UpstreamError({
      upstream: 'http://127.0.0.1:8545',
      what: `eth_getBalance ${address} at block 12`,
      detail: 'HTTP 503 after 3 attempts',
    })
    expect(wire(failed)).toEqual({
      code: -32000,
      message: `fork upstream http://127.0.0.1:8545 failed eth_getBalance ${address} at block 12: HTTP 503 after 3 attempts`,
    })
  })

  test('the wallet’s errors with EIP-1193’s and EIP-5792’s codes', () => {
    expect(wire(new wallet.UserRejectedError())).toEqual({ code: 4001, message: 'User rejected the request' })
    expect(wire(new wallet.NotAuthorizedError('a bearer token is required'))).toEqual({
      code: 4100,
      message: 'The requested account and/or method has not been authorized by the user: a bearer token is required',
    })
    expect(wire(new wallet.UnknownBatchError())).toEqual({ code: 5730, message: 'This bundle id is unknown / has not been submitted' })
    expect(wire(new wallet.UnsupportedRequestError('eth_sign'))).toEqual({
      code: -32601,
      message: 'the method eth_sign does not exist/is not available',
    })
  })

  test('error: anything not ours is not mapped, for dispatch to answer -32603', () => {
    expect(toRpcError(new Error('boom'), { revertCode: -32000 })).toBeUndefined()
  })
})
