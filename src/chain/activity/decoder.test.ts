import { encodeErrorResult, encodeFunctionData, parseAbi, toFunctionSelector } from 'viem'
import { describe, expect, test } from 'vitest'

import { createActivityDecoder } from './decoder.ts'

import type { Hex } from '../../hex.ts'

const errors = parseAbi([
  'error Error(string)',
  'error Panic(uint256)',
  'error InsufficientBalance(address who, uint256 has, uint256 needs)',
  'error Custom(uint256 code, address who)',
])
const revert = (errorName: 'Error' | 'Panic' | 'InsufficientBalance' | 'Custom', args: readonly unknown[]) =>
  ({ halt: 'revert', data: encodeErrorResult({ abi: errors, errorName, args } as never) }) as const
const alice = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const project = parseAbi([
  'function mint(address to, uint256 amount, string memo)',
  'function transfer(address recipient, uint256 amount) returns (bool)',
  'function setRoute((address pool, bool zeroForOne)[] hops, bytes32 salt)',
  'error InsufficientBalance(address who, uint256 has, uint256 needs)',
])

describe('call', () => {
  test('default: a well-known ERC-20 call by name, addresses shortened', () => {
    const data = encodeFunctionData({ abi: parseAbi(['function transfer(address,uint256)']), args: [alice, 1000n] })
    expect(createActivityDecoder().call(data)).toEqual({ name: 'transfer', args: ['0x7099…79c8', '1000'] })
  })

  test('ERC-721 calls, and ERC-7821 execute as the wallet sends it', () => {
    const erc721 = parseAbi([
      'function safeTransferFrom(address,address,uint256,bytes)',
      'function setApprovalForAll(address,bool)',
      'function execute(bytes32,bytes)',
    ])
    const decoder = createActivityDecoder()
    expect(decoder.call(encodeFunctionData({ abi: erc721, functionName: 'safeTransferFrom', args: [alice, alice, 7n, '0x1234'] }))).toEqual({
      name: 'safeTransferFrom',
      args: ['0x7099…79c8', '0x7099…79c8', '7', '0x1234'],
    })
    expect(decoder.call(encodeFunctionData({ abi: erc721, functionName: 'setApprovalForAll', args: [alice, true] }))).toEqual({
      name: 'setApprovalForAll',
      args: ['0x7099…79c8', 'true'],
    })
    const mode = `0x01${'0'.repeat(62)}` as Hex
    expect(decoder.call(encodeFunctionData({ abi: erc721, functionName: 'execute', args: [mode, '0x'] }))).toEqual({
      name: 'execute',
      args: ['0x0100…0000', '0x'],
    })
  })

  test('args: project ABIs come first, with strings, tuples, arrays and bytes32', () => {
    const decoder = createActivityDecoder(project)
    expect(decoder.call(encodeFunctionData({ abi: project, functionName: 'mint', args: [alice, 5n, 'a memo longer than twenty-four'] }))).toEqual({
      name: 'mint',
      args: ['0x7099…79c8', '5', '"a memo longer than twent…"'],
    })
    const hops = [{ pool: alice, zeroForOne: false }] as const
    const salt = `0x${'ab'.repeat(32)}` as Hex
    expect(decoder.call(encodeFunctionData({ abi: project, functionName: 'setRoute', args: [hops, salt] }))).toEqual({
      name: 'setRoute',
      args: ['[(0x7099…79c8, false)]', '0xabab…abab'],
    })
  })

  test('error: an unknown selector or data shorter than one is not named; data that does not decode is named only', () => {
    const decoder = createActivityDecoder(project)
    expect(decoder.call('0x12345678')).toBeUndefined()
    expect(decoder.call('0x1234')).toBeUndefined()
    expect(decoder.call(toFunctionSelector('function mint(address,uint256,string)'))).toEqual({ name: 'mint', args: ['?'] })
  })
})

describe('failure', () => {
  const decoder = createActivityDecoder(project)

  test('default: an Error(string) is its reason', () => {
    expect(decoder.failure(revert('Error', ['nope']))).toBe('nope')
  })

  test('a Panic(uint256) by its meaning and code; an unknown code as geth says it', () => {
    expect(decoder.failure(revert('Panic', [0x01n]))).toBe('panic: assert(false) (0x1)')
    expect(decoder.failure(revert('Panic', [0x11n]))).toBe('panic: arithmetic underflow or overflow (0x11)')
    expect(decoder.failure(revert('Panic', [0x12n]))).toBe('panic: division or modulo by zero (0x12)')
    expect(decoder.failure(revert('Panic', [0x32n]))).toBe('panic: out-of-bounds access of an array or bytesN (0x32)')
    expect(decoder.failure(revert('Panic', [0x99n]))).toBe('panic: unknown panic code: 0x99 (0x99)')
  })

  test('a custom error by name where an ABI knows it', () => {
    expect(decoder.failure(revert('InsufficientBalance', [alice, 1n, 2n]))).toBe('InsufficientBalance(0x7099…79c8, 1, 2)')
  })

  test('any other data: its selector and length, or the bytes when shorter than a selector', () => {
    expect(decoder.failure(revert('Custom', [42n, alice]))).toBe('data 0x2202f1fa… (68 bytes)')
    expect(createActivityDecoder().failure(revert('InsufficientBalance', [alice, 1n, 2n]))).toBe('data 0xdb42144d… (100 bytes)')
    expect(decoder.failure({ halt: 'revert', data: '0x1234' })).toBe('data 0x1234')
  })

  test('a revert without data has no reason; a halt is the EVM’s words', () => {
    expect(decoder.failure({ halt: 'revert', data: '0x' })).toBeUndefined()
    expect(decoder.failure({ halt: 'out of gas', data: '0x' })).toBe('out of gas')
    expect(decoder.failure({ halt: 'invalid opcode', data: '0x' })).toBe('invalid opcode')
  })
})
