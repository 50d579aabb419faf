import { KECCAK256_NULL, bytesToHex, equalsBytes } from '@ethereumjs/util'
import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { address, block } from '../schemas.ts'

import type { Hex } from '../../chain/state/types.ts'

/**
 * Hex of each stored code array, encoded once: code never changes under its hash, and encoding it (up to 24 kB) on
 * every request was most of what eth_getCode cost. Entries go with the arrays they describe.
 */
const hexOfCode = new WeakMap<Uint8Array, Hex>()

function codeHex(code: Uint8Array): Hex {
  let hex = hexOfCode.get(code)
  if (hex === undefined) hexOfCode.set(code, (hex = `0x${Buffer.from(code.buffer, code.byteOffset, code.byteLength).toString('hex')}`))
  return hex
}

/**
 * The code at an address. A missing block means `latest`, as geth does. An EIP-7702 delegated account answers
 * with its raw 23-byte designator (0xef0100 ‖ delegate), not the delegate's code.
 */
export const getCode = defineMethod({
  params: z.tuple([address, block.optional()]),
  handler: ([account, at = 'latest'], { chain }) => {
    const state = chain.stateAt(at)
    const record = state.account(account)
    if (record === undefined || equalsBytes(record.codeHash, KECCAK256_NULL)) return '0x'
    const code = state.code(bytesToHex(record.codeHash) as Hex)
    return code === undefined ? '0x' : codeHex(code)
  },
})
