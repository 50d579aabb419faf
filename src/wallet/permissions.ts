import { NotAuthorizedError } from './errors.ts'

import type { Hex } from '../hex.ts'
import type { Caller, WalletCore } from './core.ts'

/** EIP-2255's permission object for the `eth_accounts` capability. */
export type Permission = {
  parentCapability: 'eth_accounts'
  invoker: string
  caveats: [{ type: 'restrictReturnedAccounts'; value: Hex[] }]
  date: number
}

/** An origin's grant: the accounts it may use, since when (ms). */
export type Grant = { origin: string; accounts: Hex[]; grantedAt: number }

/** Which browser origins may use which accounts (EIP-1102, EIP-2255); grants persist in the wallet's store. */
export type Permissions = {
  /** Every origin's grant, for the owner. */
  grants(): Grant[]
  /** Takes an origin's grant away, as the owner; false when it had none. */
  revokeGrant(origin: string): boolean
  requestAccounts(caller: Caller): Promise<Hex[]>
  requestPermissions(caller: Caller): Promise<Permission[]>
  getPermissions(caller: Caller): Permission[]
  revokePermissions(caller: Caller): void
}

export function createPermissions(core: WalletCore): Permissions {
  const { store, addresses } = core

  function permissionsOf(origin: string): Permission[] {
    const granted = store.permissions(origin)
    if (granted === undefined) return []
    return [
      {
        parentCapability: 'eth_accounts',
        invoker: origin,
        caveats: [{ type: 'restrictReturnedAccounts', value: addresses.filter((address) => granted.accounts.includes(address)) }],
        date: granted.grantedAt,
      },
    ]
  }

  /**
   * An origin gets the wallet's accounts once the user approves; the owner has them already. Under the approve policy,
   * only a trusted origin is approved at once: any other waits in the approval queue, as under manual.
   */
  async function grant(caller: Caller, method: string): Promise<void> {
    if (!core.tokenAccepted(caller)) throw new NotAuthorizedError('a bearer token is required')
    if (caller.origin === undefined) return
    if (store.permissions(caller.origin) !== undefined) return
    // Any web page can call; one from an origin the developer has not named waits for a click, even under approve.
    await core.approve('eth_requestAccounts', caller, method, [], { prompt: !core.originTrusted(caller.origin) })
    store.grant(caller.origin, [...addresses], Date.now())
  }

  return {
    grants: () => store.grants(),
    revokeGrant(origin) {
      if (store.permissions(origin) === undefined) return false
      store.revoke(origin)
      return true
    },

    async requestAccounts(caller) {
      await grant(caller, 'eth_requestAccounts')
      return core.permittedAccounts(caller)
    },

    async requestPermissions(caller) {
      await grant(caller, 'wallet_requestPermissions')
      return caller.origin === undefined ? [] : permissionsOf(caller.origin)
    },

    getPermissions: (caller) => (caller.origin === undefined || !core.tokenAccepted(caller) ? [] : permissionsOf(caller.origin)),

    revokePermissions(caller) {
      if (caller.origin !== undefined) store.revoke(caller.origin)
    },
  }
}
