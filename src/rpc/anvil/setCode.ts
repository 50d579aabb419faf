import { hexToBytes } from '@ethereumjs/util'
import { z } from 'zod'

import { setCode } from '../../chain/state/edits.ts'
import { address, data } from '../schemas.ts'
import { anvilMethod, hardhatMethod } from './control.ts'

import type { MethodContext } from '../method.ts'

const params = z.tuple([address, data])

/** Replaces an account's code; its balance, nonce and storage stay. `0x` removes the code. */
function setCodeOf([account, code]: z.output<typeof params>, { control }: MethodContext) {
  return control.edit(setCode(account, hexToBytes(code)))
}

export const anvilSetCode = anvilMethod('anvil_setCode', params, setCodeOf)
export const hardhatSetCode = hardhatMethod('hardhat_setCode', params, setCodeOf)
