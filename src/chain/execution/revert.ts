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

export function revertError(returnValue: Uint8Array): ExecutionRevertedError {
  const data = `0x${Buffer.from(returnValue).toString('hex')}` as Hex
  return new ExecutionRevertedError({ reason: decodeRevertReason(data), data })
}
