import { KECCAK256_NULL, bytesToHex, equalsBytes } from '@ethereumjs/util'

import type { Hex } from '../../hex.ts'
import type { StateReader } from './types.ts'

const EMPTY = new Uint8Array(0)

/** The code of an account: empty for none (an EIP-7702 delegated account has its 23-byte designator). */
export function codeOf(state: StateReader, address: Hex): Uint8Array {
  const account = state.account(address)
  if (account === undefined || equalsBytes(account.codeHash, KECCAK256_NULL)) return EMPTY
  return state.code(bytesToHex(account.codeHash) as Hex) ?? EMPTY
}

/**
 * Hex of each stored code array, encoded once: code never changes under its hash, and encoding it (up to 24 kB) on
 * every request was most of what eth_getCode cost. Entries go with the arrays they describe.
 */
const hexOfCode = new WeakMap<Uint8Array, Hex>()

/** The code of an account as hex: `0x` for none. */
export function codeHexOf(state: StateReader, address: Hex): Hex {
  const code = codeOf(state, address)
  if (code.length === 0) return '0x'
  let hex = hexOfCode.get(code)
  if (hex === undefined) hexOfCode.set(code, (hex = `0x${Buffer.from(code.buffer, code.byteOffset, code.byteLength).toString('hex')}`))
  return hex
}
