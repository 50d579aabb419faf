import { encodeFunctionData, parseAbi, toFunctionSelector } from 'viem'
import { describe, expect, test } from 'vitest'

import { consoleMessage } from './consoleLog.ts'

import type { Hex } from '../../hex.ts'

/** console.sol's overloads as it encodes them (`logUint(x)` sends `log(uint256)`, and so on). */
const log = (signature: string, args: readonly unknown[]): Hex =>
  encodeFunctionData({ abi: parseAbi([`function log(${signature})`]), functionName: 'log', args } as never)
const alice = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

describe('consoleMessage', () => {
  test('default: console.log("hello")', () => {
    expect(consoleMessage(log('string', ['hello']))).toBe('hello')
  })

  test('each single-argument overload: logUint, logInt, logBool, logAddress, logBytes, logBytes1…32, log()', () => {
    expect(consoleMessage(log('uint256', [2n ** 256n - 1n]))).toBe((2n ** 256n - 1n).toString())
    expect(consoleMessage(log('int256', [-42n]))).toBe('-42')
    expect(consoleMessage(log('bool', [false]))).toBe('false')
    expect(consoleMessage(log('address', [alice]))).toBe(alice.toLowerCase())
    expect(consoleMessage(log('bytes', ['0xdeadbeef']))).toBe('0xdeadbeef')
    expect(consoleMessage(log('bytes1', ['0xab']))).toBe('0xab')
    expect(consoleMessage(log('bytes32', [`0x${'cd'.repeat(32)}`]))).toBe(`0x${'cd'.repeat(32)}`)
    expect(consoleMessage(log('', []))).toBe('')
  })

  test('two to four arguments of uint256, string, bool and address, joined by spaces', () => {
    expect(consoleMessage(log('string,uint256', ['balance', 7n]))).toBe('balance 7')
    expect(consoleMessage(log('uint256,bool,address', [1n, true, alice]))).toBe(`1 true ${alice.toLowerCase()}`)
    expect(consoleMessage(log('address,address,uint256,string', [alice, alice, 3n, 'x']))).toBe(`${alice.toLowerCase()} ${alice.toLowerCase()} 3 x`)
  })

  test('a format string: %s, %d and %i as text (exact beyond 2^53), %% escaped, extra arguments appended', () => {
    expect(consoleMessage(log('string,uint256', ['x %s', 1n]))).toBe('x 1')
    expect(consoleMessage(log('string,uint256', ['x %d wei', 10n ** 20n]))).toBe('x 100000000000000000000 wei')
    expect(consoleMessage(log('string,uint256,uint256', ['%i of %s', 1n, 2n]))).toBe('1 of 2')
    expect(consoleMessage(log('string,uint256', ['100%% sure: %s', 5n]))).toBe('100% sure: 5')
    expect(consoleMessage(log('string,uint256', ['%%d stays', 5n]))).toBe('%d stays 5')
    expect(consoleMessage(log('string,string,bool', ['%s:', 'a', true]))).toBe('a: true')
    expect(consoleMessage(log('string,address', ['to %s', alice]))).toBe(`to ${alice.toLowerCase()}`)
  })

  test('the format string is only the first argument; a string alone is printed as it is', () => {
    expect(consoleMessage(log('uint256,string', [1n, '%s']))).toBe('1 %s')
    expect(consoleMessage(log('string', ['50%% %s']))).toBe('50%% %s')
  })

  test('the uint and int encodings of earlier releases of console.sol', () => {
    const legacy = (signature: string, args: readonly unknown[]): Hex => {
      const abi = parseAbi([`function log(${signature.replaceAll('uint', 'uint256')})`])
      const encoded = encodeFunctionData({ abi, functionName: 'log', args } as never)
      // viem reads `uint` as `uint256` when it encodes; the selector of the text as written is the old one.
      return `${toFunctionSelector(`log(${signature})`)}${encoded.slice(10)}` as Hex
    }
    expect(toFunctionSelector('log(uint)')).not.toBe(toFunctionSelector('log(uint256)'))
    expect(consoleMessage(legacy('uint', [5n]))).toBe('5')
    expect(consoleMessage(legacy('string,uint', ['n=%s', 6n]))).toBe('n=6')
  })

  test('error: an unknown selector, or data that does not decode, is no message', () => {
    expect(consoleMessage('0x12345678')).toBeUndefined()
    expect(consoleMessage(log('string', ['hello']).slice(0, 20) as Hex)).toBeUndefined()
  })
})
