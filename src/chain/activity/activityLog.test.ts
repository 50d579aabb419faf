import { encodeErrorResult, encodeFunctionData, parseAbi } from 'viem'
import { describe, expect, test } from 'vitest'

import { LINE_WIDTH, transactionLines } from './activityLog.ts'
import { createActivityDecoder } from './decoder.ts'

import type { Hex } from '../../hex.ts'
import type { Receipt, Transaction } from '../types.ts'

const hash = `0x${'ab'.repeat(32)}` as Hex
const token = '0x5fbdb2315678afecb367f032d93f642f64180aa3' as Hex
const alice = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8' as Hex
const abi = parseAbi([
  'function transfer(address to, uint256 amount)',
  'function route(address a, address b, address c, address d, uint256 amount)',
  'error InsufficientBalance(address who, uint256 has, uint256 needs)',
  'function log(string, uint256)',
])
const decoder = createActivityDecoder(abi)

const tx = (fields: Partial<Transaction>) => ({ hash, to: token, value: 0n, input: '0x', ...fields }) as Transaction
const receipt = (fields: Partial<Receipt>) => ({ status: 1, gasUsed: 21000n, contractAddress: null, ...fields }) as Receipt

describe('transactionLines', () => {
  test('default: a call as its ABI names it, on the contract it was sent to', () => {
    const input = encodeFunctionData({ abi, functionName: 'transfer', args: [alice, 1000n] })
    expect(transactionLines(tx({ input }), receipt({ gasUsed: 34512n }), decoder)).toEqual([
      `  ${hash} 0x5fbd…0aa3.transfer(0x7099…79c8, 1000) gas 34512`,
    ])
  })

  test('a plain transfer shows its value; a deployment the address it created; ether sent with a call', () => {
    expect(transactionLines(tx({ to: alice, value: 1500000000000000000n }), receipt({}), decoder)).toEqual([
      `  ${hash} 1.5 ETH → 0x7099…79c8 gas 21000`,
    ])
    expect(transactionLines(tx({ to: null, input: '0x6000' }), receipt({ contractAddress: token, gasUsed: 53000n }), decoder)).toEqual([
      `  ${hash} deployed 0x5fbd…0aa3 gas 53000`,
    ])
    expect(transactionLines(tx({ input: '0x12345678', value: 1n }), receipt({}), decoder)).toEqual([
      `  ${hash} 0x5fbd…0aa3 selector 0x12345678 with 0.000000000000000001 ETH gas 21000`,
    ])
  })

  test('a revert says why, with the custom error by name (the call gives it the room); a failed deployment created nothing', () => {
    const input = encodeFunctionData({ abi, functionName: 'transfer', args: [alice, 1000n] })
    const data = encodeErrorResult({ abi, errorName: 'InsufficientBalance', args: [alice, 1n, 1000n] })
    expect(transactionLines(tx({ input }), receipt({ status: 0, failure: { halt: 'revert', data } }), decoder)).toEqual([
      `  ${hash} 0x5fbd…0aa3.transfer(…) gas 21000 reverted: InsufficientBalance(0x7099…79c8, 1, 1000)`,
    ])
    expect(
      transactionLines(tx({ to: null }), receipt({ status: 0, contractAddress: token, failure: { halt: 'out of gas', data: '0x' } }), decoder),
    ).toEqual([`  ${hash} deploy gas 21000 reverted: out of gas`])
    expect(transactionLines(tx({}), receipt({ status: 0, failure: { halt: 'revert', data: '0x' } }), decoder)).toEqual([
      `  ${hash} 0 ETH → 0x5fbd…0aa3 gas 21000 reverted`,
    ])
  })

  test(`arguments that would take the line past ${LINE_WIDTH} columns are left out whole; the reason never is`, () => {
    const input = encodeFunctionData({ abi, functionName: 'route', args: [alice, alice, alice, alice, 10n ** 24n] })
    const [line] = transactionLines(tx({ input }), receipt({}), decoder)
    expect(line).toBe(`  ${hash} 0x5fbd…0aa3.route(0x7099…79c8, …) gas 21000`)
    expect(line!.length).toBeLessThanOrEqual(LINE_WIDTH)
    const data = encodeErrorResult({
      abi: parseAbi(['error Error(string)']),
      errorName: 'Error',
      args: ['a reason longer than the room the line has left'],
    })
    expect(transactionLines(tx({ input }), receipt({ status: 0, failure: { halt: 'revert', data } }), decoder)).toEqual([
      `  ${hash} 0x5fbd…0aa3.route(…) gas 21000 reverted: a reason longer than the room the line has left`,
    ])
  })

  test('console.log messages follow, indented, a message of several lines line by line', () => {
    const consoleCalls = [
      encodeFunctionData({ abi, functionName: 'log', args: ['balance %s', 5n] }),
      encodeFunctionData({ abi, functionName: 'log', args: ['two\nlines', 1n] }),
      '0x12345678' as Hex,
    ]
    expect(transactionLines(tx({ to: alice, value: 0n }), receipt({ consoleCalls }), decoder)).toEqual([
      `  ${hash} 0 ETH → 0x7099…79c8 gas 21000`,
      '    balance 5',
      '    two',
      '    lines 1',
    ])
  })
})
