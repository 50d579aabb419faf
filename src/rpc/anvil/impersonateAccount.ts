import { z } from 'zod'

import { address } from '../schemas.ts'
import { anvilMethod, hardhatMethod } from './control.ts'

import type { MethodContext } from '../method.ts'

const params = z.tuple([address])

/**
 * The owner may then send from the account with eth_sendTransaction and wallet_sendCalls (non-atomic), without its
 * key. The transactions carry a stand-in signature that only this chain accepts.
 */
function impersonate([account]: z.output<typeof params>, { wallet }: MethodContext) {
  wallet.impersonation.start(account)
}

function stop([account]: z.output<typeof params>, { wallet }: MethodContext) {
  wallet.impersonation.stop(account)
}

export const anvilImpersonateAccount = anvilMethod('anvil_impersonateAccount', params, impersonate)
export const hardhatImpersonateAccount = hardhatMethod('hardhat_impersonateAccount', params, impersonate)
export const anvilStopImpersonatingAccount = anvilMethod('anvil_stopImpersonatingAccount', params, stop)
export const hardhatStopImpersonatingAccount = hardhatMethod('hardhat_stopImpersonatingAccount', params, stop)

/** Every address is impersonated while it is on. */
export const anvilAutoImpersonateAccount = anvilMethod('anvil_autoImpersonateAccount', z.tuple([z.boolean()]), ([enabled], { wallet }) =>
  wallet.impersonation.setAuto(enabled),
)
