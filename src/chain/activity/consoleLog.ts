/**
 * Hardhat's console.sol: a contract's `console.log(…)` is a call to a fixed address with no code, its data the
 * ABI encoding of one of the library's `log` overloads. This module turns such a call's data into the line Hardhat's
 * node prints for it.
 */
import { format } from 'node:util'

import * as AbiItem from 'ox/AbiItem'
import * as AbiParameters from 'ox/AbiParameters'

import type { Hex } from '../../hex.ts'

/** console.sol's address: the bytes of "console.log". */
export const CONSOLE_ADDRESS = '0x000000000000000000636f6e736f6c652e6c6f67' as Hex

/** The types a single-argument overload takes (logUint, logString, logBytes32…). */
const singles = ['uint256', 'int256', 'string', 'bool', 'address', 'bytes', ...Array.from({ length: 32 }, (_, i) => `bytes${i + 1}`)]
/** The types of each position of the overloads with two to four arguments. */
const positional = ['uint256', 'string', 'bool', 'address']

/** Every argument list console.sol encodes: `log()`, one of `singles`, and 2 to 4 of `positional` in any order. */
function overloads(): string[][] {
  const lists: string[][] = [[], ...singles.map((type) => [type])]
  let previous: string[][] = [[]]
  for (let length = 1; length <= 4; length++) {
    previous = previous.flatMap((list) => positional.map((type) => [...list, type]))
    if (length >= 2) lists.push(...previous)
  }
  return lists
}

let bySelector: Map<string, readonly string[]> | undefined

/**
 * The argument types by selector, computed on the first console call. Earlier releases of Hardhat's console.sol
 * encoded `uint` and `int` where the later ones encode `uint256` and `int256` (another selector, the same
 * arguments), and contracts built with them are still deployed: both are known.
 */
function signatures(): Map<string, readonly string[]> {
  if (bySelector !== undefined) return bySelector
  bySelector = new Map()
  for (const types of overloads()) {
    bySelector.set(AbiItem.getSelector(`function log(${types.join(',')})`), types)
    const legacy = types.map((type) => type.replace(/^(u?int)256$/, '$1'))
    if (legacy.some((type, i) => type !== types[i])) bySelector.set(AbiItem.getSelector(`function log(${legacy.join(',')})`), types)
  }
  return bySelector
}

/** An argument as Hardhat writes it: numbers in decimal, addresses and bytes as lowercase hex. */
function text(type: string, value: unknown): string {
  if (type === 'address') return (value as string).toLowerCase()
  return String(value)
}

/**
 * The message of one console.log call, formatted as Hardhat's node formats it: the arguments as text, then Node's
 * util.format, whose first argument is the format string (`%s`, `%o`, `%j`, `%%`…; more arguments than specifiers are
 * appended with spaces). `%d` and `%i` are read as `%s`, as Hardhat does, so that a uint256 beyond 2^53 prints
 * exactly. Undefined for data that is no console.sol call.
 */
export function consoleMessage(data: Hex): string | undefined {
  const types = signatures().get(data.slice(0, 10))
  if (types === undefined) return undefined
  let values: readonly unknown[]
  try {
    values = AbiParameters.decode(
      types.map((type) => ({ type })),
      `0x${data.slice(10)}`,
    )
  } catch {
    return undefined
  }
  const args = values.map((value, i) => text(types[i]!, value))
  if (args.length > 0) args[0] = numbersAsStrings(args[0]!)
  return format(...args)
}

/** `%d` and `%i` as `%s`, where the `%` is not itself escaped (`%%d` prints `%d`). */
function numbersAsStrings(template: string): string {
  return template.replace(/%+[di]/g, (match) => ((match.length - 1) % 2 === 1 ? `${match.slice(0, -1)}s` : match))
}
