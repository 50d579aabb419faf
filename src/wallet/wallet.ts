import { NotAuthorizedError } from './errors.ts'
import { watchAsset } from './assets.ts'
import { createBatches } from './batches.ts'
import { createWalletCore } from './core.ts'
import { createPermissions } from './permissions.ts'
import { createSigning } from './signing.ts'
import { sendTransaction, signTransaction } from './transactions.ts'

import type { CallRequest } from '../chain/execution/executor.ts'
import type { Participant } from '../chain/services/control.ts'
import type { Hex } from '../hex.ts'
import type { Approvals } from './approvals.ts'
import type { AssetRequest } from './assets.ts'
import type { Batches } from './batches.ts'
import type { AtomicStatus, Caller, Impersonation, WalletOptions } from './core.ts'
import type { Permissions } from './permissions.ts'
import type { Signing } from './signing.ts'
import type { WalletRows, WatchedAsset } from './store.ts'

export type { Caller, WalletChain, WalletOptions } from './core.ts'
export type { Permission } from './permissions.ts'

/** wallet_getCapabilities' answer: per chain id, what the wallet can do for the account there (EIP-5792). */
export type Capabilities = Record<
  Hex,
  {
    atomic: { status: AtomicStatus }
    gasLimitOverride: { supported: boolean }
    dataSuffix: { supported: boolean }
    paymasterService: { supported: boolean }
    auxiliaryFunds: { supported: boolean }
  }
>

/**
 * The headless wallet: the dev accounts (or the keys given), one selected network (this chain), and a user whose
 * answers are the approval policy. It reaches the chain only through WalletChain.
 */
export type Wallet = Permissions &
  Signing & {
    accounts(caller: Caller): Hex[]
    sendTransaction(caller: Caller, request: CallRequest & { from: Hex }): Promise<Hex>
    signTransaction(caller: Caller, request: CallRequest & { from: Hex }): Promise<Hex>
    capabilities(caller: Caller, address: Hex, chainIds: Hex[] | undefined): Capabilities
    batches: Batches
    watchAsset(caller: Caller, asset: AssetRequest): Promise<true>
    watchedAssets(caller: Caller, account: Hex | undefined): WatchedAsset[]
    approvals: Approvals
    /**
     * 4100 for anyone but the owner: no Origin, and the token where one is needed. The RPC layer calls it for every
     * method declared the owner's, before reading the method's params.
     */
    requireOwner(caller: Caller): void
    /** Accounts the owner sends from without their keys (anvil_impersonateAccount). */
    impersonation: Impersonation
    /** flashchain_setAtomicStatus: the status to report for an account, or undefined for what the chain says. */
    setAtomicStatus(address: Hex, status: AtomicStatus | undefined): void
    /**
     * The wallet's part in the chain's test control, which the node registers with it (`control.participate`):
     * evm_snapshot keeps the wallet's batches, token lists and grants beside the chain's snapshot, evm_revert brings
     * them back in the database transaction that rewinds the chain, and anvil_reset clears batches and watched
     * tokens and keeps the grants.
     */
    testControl: Participant<WalletSnapshot>
    close(): void
  }

/** What a snapshot keeps of the wallet: its tables, and the accounts it impersonates. */
export type WalletSnapshot = { rows: WalletRows; impersonation: ReturnType<Impersonation['save']> }

export function createWallet(options: WalletOptions): Wallet {
  const core = createWalletCore(options)
  const { store, chainIdHex } = core

  return {
    ...createPermissions(core),
    ...createSigning(core, { enableEthSign: options.enableEthSign ?? false }),
    accounts: (caller) => core.permittedAccounts(caller),
    sendTransaction: (caller, request) => sendTransaction(core, caller, request),
    signTransaction: (caller, request) => signTransaction(core, caller, request),

    capabilities(caller, address, chainIds) {
      core.authorize(caller, address)
      if (chainIds !== undefined && !chainIds.includes(chainIdHex)) return {}
      // Stated per chain: viem does not merge a "0x0" entry into the others.
      const status = core.atomicOverrides.get(address) ?? core.atomicStatus(address)
      return {
        [chainIdHex]: {
          atomic: { status },
          gasLimitOverride: { supported: true },
          dataSuffix: { supported: true },
          // Said outright, so that a dApp asks for neither without marking it optional.
          paymasterService: { supported: false },
          auxiliaryFunds: { supported: false },
        },
      }
    },

    batches: createBatches(core),
    watchAsset: (caller, asset) => watchAsset(core, caller, asset),

    watchedAssets(caller, account) {
      const address = account ?? core.addresses[0]!
      core.authorize(caller, address)
      return store.assets(address, chainIdHex)
    },

    approvals: core.approvals,

    requireOwner(caller) {
      if (!core.isOwner(caller)) throw new NotAuthorizedError('admin methods are for the owner only')
    },

    impersonation: core.impersonation,
    setAtomicStatus(address, status) {
      if (status === undefined) core.atomicOverrides.delete(address)
      else core.atomicOverrides.set(address, status)
    },
    testControl: {
      capture: () => ({ rows: store.capture(), impersonation: core.impersonation.save() }),
      restore(saved) {
        store.restore(saved.rows)
        core.impersonation.restore(saved.impersonation)
      },
      reset() {
        store.clearHistory()
        core.impersonation.restore({ addresses: [], auto: false })
      },
    },

    close: () => core.approvals.close(),
  }
}
