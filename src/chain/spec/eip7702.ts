import type { Hex } from '../../hex.ts'

/**
 * EIP-7702's delegation designator: an account whose code is `0xef0100 ‖ address` runs that address's code, and
 * stays an externally owned account for EIP-3607. EIP-3541 keeps any other code from starting with 0xef.
 */
const PREFIX = [0xef, 0x01, 0x00] as const
const DESIGNATOR_BYTES = 23

export function isDelegation(code: Uint8Array): boolean {
  return code.length === DESIGNATOR_BYTES && code[0] === PREFIX[0] && code[1] === PREFIX[1] && code[2] === PREFIX[2]
}

/** The delegate of an account with this code: `undefined` for no code, `null` for code that is not a designator. */
export function delegateOf(code: Hex): Hex | undefined | null {
  if (code === '0x') return undefined
  return code.length === 2 + 2 * DESIGNATOR_BYTES && code.startsWith('0xef0100') ? (`0x${code.slice(8)}` as Hex) : null
}
