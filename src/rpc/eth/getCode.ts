import { KECCAK256_NULL, bytesToHex, equalsBytes } from '@ethereumjs/util'
import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { address, block } from '../schemas.ts'

import type { Hex } from '../../chain/state/types.ts'

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
    return bytesToHex(state.code(bytesToHex(record.codeHash) as Hex) ?? new Uint8Array(0))
  },
})
