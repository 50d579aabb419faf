import * as AbiParameters from 'ox/AbiParameters'

import { ExecutionRevertedError } from '../errors.ts'

import type { Hex } from '../../hex.ts'

/** geth's wording for Solidity's Panic(uint256) codes (see the Solidity docs, "Panic via assert"). */
const panicReasons: Record<string, string> = {
  '0': 'generic panic',
  '1': 'assert(false)',
  '17': 'arithmetic underflow or overflow',
  '18': 'division or modulo by zero',
  '33': 'enum overflow',
  '34': 'invalid encoded storage byte array accessed',
  '49': 'out-of-bounds array access; popping on an empty array',
  '50': 'out-of-bounds access of an array or bytesN',
  '65': 'out of memory',
  '81': 'uninitialized function',
}

/** The human reason inside revert data: Error(string) or Panic(uint256); undefined for anything else. */
export function decodeRevertReason(data: Hex): string | undefined {
  try {
    if (data.startsWith('0x08c379a0')) {
      const [reason] = AbiParameters.decode([{ type: 'string' }], `0x${data.slice(10)}`)
      return reason
    }
    if (data.startsWith('0x4e487b71')) {
      const [code] = AbiParameters.decode([{ type: 'uint256' }], `0x${data.slice(10)}`)
      return panicReasons[code.toString()] ?? `unknown panic code: 0x${code.toString(16)}`
    }
  } catch {
    // Malformed payloads are reported without a reason, with their bytes in `data`.
  }
  return undefined
}

/**
 * Why a transaction failed, for the node's log (as anvil prints it under each failed transaction): the EVM's own
 * words for a halt (`out of gas`, `invalid opcode`), the reason of an Error(string), a Panic(uint256) by its code and
 * geth's words for it, the selector of any other error; undefined for a revert without data.
 */
export function failureReason(halt: string, returnValue: Uint8Array): string | undefined {
  if (halt !== 'revert') return halt
  if (returnValue.length === 0) return undefined
  const data = `0x${Buffer.from(returnValue).toString('hex')}` as Hex
  const reason = decodeRevertReason(data)
  if (data.startsWith('0x4e487b71') && reason !== undefined) return `panic: ${reason} (0x${BigInt(`0x${data.slice(10)}`).toString(16)})`
  if (reason !== undefined) return reason
  return returnValue.length >= 4 ? `custom error ${data.slice(0, 10)}` : `revert data ${data}`
}

export function revertError(returnValue: Uint8Array): ExecutionRevertedError {
  const data = `0x${Buffer.from(returnValue).toString('hex')}` as Hex
  return new ExecutionRevertedError({ reason: decodeRevertReason(data), data })
}
