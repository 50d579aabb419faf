import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { address, block } from '../schemas.ts'

import type { Hex } from '../../hex.ts'
import type { EncodedJson } from '../../runtime/encodedJson.ts'

/**
 * `(address, block = latest)`: the code at an address, `0x` for none. A missing block means `latest`, as geth does.
 * An EIP-7702 delegated account answers with its raw 23-byte designator (0xef0100 ‖ delegate), not the delegate's
 * code (docs/chain.md, "eth_getCode"). The answer is JSON bytes, encoded once per code (state/code.ts).
 */
export const getCode = defineMethod({
  name: 'eth_getCode',
  access: 'public',
  upstream: { block: 1, scope: 'state' },
  params: z.tuple([address, block.optional()]),
  handler: ([account, given], { state, node }): Hex | EncodedJson => state.codeJson(account, given ?? node.defaultBlock),
})
