import * as AbiItem from 'ox/AbiItem'
import * as AbiParameters from 'ox/AbiParameters'

import { decodeRevertReason } from '../execution/revert.ts'
import { formatArguments, formatCall } from './text.ts'

import type { Hex } from '../../hex.ts'
import type { Failure } from '../types.ts'
import type { ParameterShape } from './text.ts'

/** An item of a contract's ABI as build output holds it; the log uses its functions and errors. */
export type AbiJson = { type: string; name?: string; inputs?: readonly ParameterShape[] }

/**
 * Calls the log names when no ABI of the project knows their selector: ERC-20's (whose approve and transferFrom
 * ERC-721 shares), ERC-721's own, and ERC-7821's execute, which the wallet's batches call (wallet/executor.ts).
 */
const wellKnown = [
  'function transfer(address to, uint256 value)',
  'function approve(address spender, uint256 value)',
  'function transferFrom(address from, address to, uint256 value)',
  'function safeTransferFrom(address from, address to, uint256 tokenId)',
  'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
  'function setApprovalForAll(address operator, bool approved)',
  'function execute(bytes32 mode, bytes executionData)',
].map((signature) => AbiItem.from(signature) as AbiJson)

type Decoded = { name: string; inputs: readonly ParameterShape[] }

export type ActivityDecoder = {
  /** A call's function and its arguments as short text; undefined for a selector no ABI knows. */
  call(data: Hex): { name: string; args: string[] } | undefined
  /** Why a transaction failed, in words; undefined for a revert without data. */
  failure(failure: Failure): string | undefined
}

/**
 * Names calls and errors from the project's ABIs (`--abi`), then from the well-known calls above. The selector
 * tables are built on the first transaction that needs them, not at start.
 */
export function createActivityDecoder(abis: readonly AbiJson[] = []): ActivityDecoder {
  let tables: { functions: Map<string, Decoded>; errors: Map<string, Decoded> } | undefined

  function lookup(): NonNullable<typeof tables> {
    if (tables !== undefined) return tables
    tables = { functions: new Map(), errors: new Map() }
    for (const item of [...abis, ...wellKnown]) {
      const table = item.type === 'function' ? tables.functions : item.type === 'error' ? tables.errors : undefined
      if (table === undefined || item.name === undefined) continue
      let selector: string
      try {
        selector = AbiItem.getSelector(item as AbiItem.AbiItem)
      } catch {
        continue // a type the ABI library cannot read: that item names nothing
      }
      // The project's ABIs first: its own name wins over a well-known one with the same selector.
      if (!table.has(selector)) table.set(selector, { name: item.name, inputs: item.inputs ?? [] })
    }
    return tables
  }

  function decode(table: Map<string, Decoded>, data: Hex): { name: string; args: string[] } | undefined {
    const item = table.get(data.slice(0, 10))
    if (item === undefined) return undefined
    try {
      const values = AbiParameters.decode(item.inputs as AbiParameters.AbiParameters, `0x${data.slice(10)}`)
      return { name: item.name, args: formatArguments(item.inputs, values) }
    } catch {
      // Data that does not decode as that item's arguments (another function with the same selector): named only.
      return { name: item.name, args: ['?'] }
    }
  }

  return {
    call: (data) => (data.length < 10 ? undefined : decode(lookup().functions, data)),
    failure({ halt, data }) {
      // The EVM's own words for a halt: out of gas, invalid opcode, stack underflow…
      if (halt !== 'revert') return halt
      if (data === '0x') return undefined
      const reason = decodeRevertReason(data)
      if (data.startsWith('0x4e487b71') && reason !== undefined) return `panic: ${reason} (0x${BigInt(`0x${data.slice(10)}`).toString(16)})`
      if (reason !== undefined) return reason
      const custom = data.length >= 10 ? decode(lookup().errors, data) : undefined
      if (custom !== undefined) return formatCall(custom.name, custom.args)
      // Unknown: the selector, which a search for the error's signature finds, and the length of the rest.
      return data.length <= 18 ? `data ${data}` : `data ${data.slice(0, 10)}… (${(data.length - 2) / 2} bytes)`
    },
  }
}
