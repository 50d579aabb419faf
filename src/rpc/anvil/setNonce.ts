import { z } from 'zod'

import { editAccount } from '../../chain/state/edits.ts'
import { address, uint64 } from '../schemas.ts'
import { anvilMethod, hardhatMethod } from './control.ts'

import type { MethodContext } from '../method.ts'

const params = z.tuple([address, uint64])

/** Sets an account's nonce, up or down, as anvil does. Queued pool transactions become pending if it meets them. */
function setNonceOf([account, nonce]: z.output<typeof params>, { control }: MethodContext) {
  return control.edit(editAccount(account, () => ({ nonce })))
}

export const anvilSetNonce = anvilMethod('anvil_setNonce', params, setNonceOf)
export const hardhatSetNonce = hardhatMethod('hardhat_setNonce', params, setNonceOf)
