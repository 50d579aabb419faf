import { KECCAK256_NULL, bytesToHex, equalsBytes } from '@ethereumjs/util'

import { EncodedJson, hexJson } from '../../runtime/encodedJson.ts'

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

/**
 * eth_getCode's answer, `"0x…"` as JSON bytes, encoded once per stored code array as its hex is: written into the
 * response as bytes, it spares each request JSON.stringify's scan of the hex and the socket's UTF-8 encoding of it,
 * which cost the main thread more than the read (a 13 % and a 60 % share of its time under eth_getCode load).
 */
const jsonOfCode = new WeakMap<Uint8Array, EncodedJson>()

/** `0x` for none: a string that short costs nothing to encode. */
export function codeJsonOf(state: StateReader, address: Hex): Hex | EncodedJson {
  const code = codeOf(state, address)
  if (code.length === 0) return '0x'
  let json = jsonOfCode.get(code)
  if (json === undefined) jsonOfCode.set(code, (json = new EncodedJson(hexJson(code))))
  return json
}
