import { encodeErrorResult, hexToBytes, parseAbi } from 'viem'
import { describe, expect, test } from 'vitest'

import { failureReason } from './revert.ts'

const abi = parseAbi(['error Error(string)', 'error Panic(uint256)', 'error Custom(uint256 code, address who)'])
const bytes = (errorName: 'Error' | 'Panic' | 'Custom', args: readonly unknown[]) => hexToBytes(encodeErrorResult({ abi, errorName, args } as never))

describe('failureReason', () => {
  test('default: an Error(string) is its reason', () => {
    expect(failureReason('revert', bytes('Error', ['nope']))).toBe('nope')
  })

  test('a Panic(uint256) by geth’s words and its code; an unknown code as geth says it', () => {
    expect(failureReason('revert', bytes('Panic', [0x11n]))).toBe('panic: arithmetic underflow or overflow (0x11)')
    expect(failureReason('revert', bytes('Panic', [0x99n]))).toBe('panic: unknown panic code: 0x99 (0x99)')
  })

  test('any other revert data: a custom error by its selector, fewer than 4 bytes as they are', () => {
    expect(failureReason('revert', bytes('Custom', [42n, '0x00000000000000000000000000000000000000aa']))).toBe('custom error 0x2202f1fa')
    expect(failureReason('revert', new Uint8Array([0x12, 0x34]))).toBe('revert data 0x1234')
  })

  test('a revert without data has no reason; a halt is the EVM’s words', () => {
    expect(failureReason('revert', new Uint8Array())).toBeUndefined()
    expect(failureReason('out of gas', new Uint8Array())).toBe('out of gas')
    expect(failureReason('invalid opcode', new Uint8Array())).toBe('invalid opcode')
  })
})
