import { hexToBytes } from '@ethereumjs/util'

import { UnauthorizedError, UserRejectedRequestError } from '../errors.ts'
import { createApprovals } from './approvals.ts'
import { createBatches } from './batches.ts'
import { watchAsset, type AssetRequest } from './assets.ts'
import { delegateOf } from '../chain/spec/eip7702.ts'
import { EXECUTOR_ADDRESS } from './executor.ts'
import { openWalletStore } from './store.ts'

import type { DatabaseSync } from 'node:sqlite'
import type { PrivateKeyAccount } from 'viem/accounts'
import type { Chain } from '../chain/chain.ts'
import type { DevAccount } from '../chain/spec/accounts.ts'
import type { CallRequest } from '../chain/execution/executor.ts'
import type { Hex } from '../hex.ts'
import type { ApprovalDecision, ApprovalKey, Approvals } from './approvals.ts'
import type { Batches } from './batches.ts'
import type { WalletStore, WatchedAsset } from './store.ts'

/** What the wallet needs of a chain. It could front a remote node one day; today it is this process's chain. */
export type WalletChain = Pick<
  Chain,
  | 'chainId'
  | 'block'
  | 'stateAt'
  | 'code'
  | 'nextNonce'
  | 'call'
  | 'estimateGas'
  | 'estimateSequence'
  | 'suggestedFees'
  | 'sendRawTransaction'
  | 'transaction'
  | 'isActive'
  | 'txGasCap'
>

/** Who is asking: a browser dApp carries an Origin; scripts and tests on the loopback bind do not. */
export type Caller = { origin: string | undefined; authorization: string | undefined }

export type WalletOptions = {
  chain: WalletChain
  database: DatabaseSync
  accounts: readonly DevAccount[]
  approval: ApprovalDecision
  /** How long a manual approval waits before it counts as rejected, in ms. */
  approvalTimeout: number
  /** Bearer token required for wallet and admin methods on a non-loopback bind. */
  walletToken: string | undefined
  /** Whether the server is bound to a loopback address only. */
  loopback: boolean
  maxBatchSize: number
  log: (line: string) => void
}

/** wallet_getCapabilities' answer: per chain id, what the wallet can do for the account there (EIP-5792). */
export type Capabilities = Record<Hex, { atomic: { status: 'supported' | 'ready' | 'unsupported' }; gasLimitOverride: { supported: boolean } }>

export type Permission = {
  parentCapability: 'eth_accounts'
  invoker: string
  caveats: [{ type: 'restrictReturnedAccounts'; value: Hex[] }]
  date: number
}

/** What batches.ts and assets.ts share with the wallet. */
export type WalletCore = {
  chain: WalletChain
  store: WalletStore
  approvals: Approvals
  chainIdHex: Hex
  maxBatchSize: number
  signer(address: Hex): Promise<PrivateKeyAccount>
  authorize(caller: Caller, address: Hex): void
  /** The accounts this caller may use, the selected one first. */
  permittedAccounts(caller: Caller): Hex[]
  /** Asks the user; a rejection or timeout is 4001. */
  approve(key: ApprovalKey, caller: Caller, method: string, params: unknown): Promise<void>
  /** What EIP-5792 calls the account's atomic status on this chain. */
  atomicStatus(address: Hex): 'supported' | 'ready' | 'unsupported'
  /** Runs signing-and-sending steps one at a time, so two of them never take the same nonce. */
  serially<T>(work: () => Promise<T>): Promise<T>
}

export type Wallet = {
  accounts(caller: Caller): Hex[]
  requestAccounts(caller: Caller): Promise<Hex[]>
  requestPermissions(caller: Caller): Promise<Permission[]>
  getPermissions(caller: Caller): Permission[]
  revokePermissions(caller: Caller): void
  sendTransaction(caller: Caller, request: CallRequest & { from: Hex }): Promise<Hex>
  capabilities(caller: Caller, address: Hex, chainIds: Hex[] | undefined): Capabilities
  batches: Batches
  watchAsset(caller: Caller, asset: AssetRequest): Promise<true>
  watchedAssets(caller: Caller, account: Hex | undefined): WatchedAsset[]
  approvals: Approvals
  /** Admin methods are for the owner only: no Origin, and the token where one is needed. */
  requireOwner(caller: Caller): void
  close(): void
}

/**
 * viem's accounts module, loaded by the first signature: a chain whose wallet never signs does not hold it (7 MB
 * resident, measured on Node 24).
 */
let accountsModule: Promise<typeof import('viem/accounts')> | undefined
const loadAccounts = () => (accountsModule ??= import('viem/accounts'))

export function createWallet(options: WalletOptions): Wallet {
  const { chain } = options
  const store = openWalletStore(options.database)
  const approvals = createApprovals({ policy: { default: options.approval, methods: {} }, timeoutMs: options.approvalTimeout })
  const addresses = options.accounts.map((account) => account.address)
  const signers = new Map<Hex, PrivateKeyAccount>()
  const chainIdHex = `0x${chain.chainId.toString(16)}` as Hex

  async function signer(address: Hex): Promise<PrivateKeyAccount> {
    const signing = signers.get(address)
    if (signing !== undefined) return signing
    const key = options.accounts.find((candidate) => candidate.address === address)
    if (key === undefined) throw new UnauthorizedError(`${address} is not an account of this wallet`)
    const { privateKeyToAccount } = await loadAccounts()
    const account = signers.get(address) ?? privateKeyToAccount(key.privateKey)
    signers.set(address, account)
    return account
  }

  /** On a non-loopback bind, nothing of the wallet answers without the token (PRODUCT.md, "Authorization"). */
  function tokenAccepted(caller: Caller): boolean {
    if (options.loopback) return true
    return options.walletToken !== undefined && caller.authorization === `Bearer ${options.walletToken}`
  }

  const isOwner = (caller: Caller) => caller.origin === undefined && tokenAccepted(caller)

  function permittedAccounts(caller: Caller): Hex[] {
    if (!tokenAccepted(caller)) return []
    if (caller.origin === undefined) return addresses.slice()
    const granted = store.permissions(caller.origin)?.accounts ?? []
    return addresses.filter((address) => granted.includes(address))
  }

  function authorize(caller: Caller, address: Hex) {
    if (!tokenAccepted(caller)) throw new UnauthorizedError(options.loopback ? undefined : 'a bearer token is required')
    if (!addresses.includes(address)) throw new UnauthorizedError(`${address} is not an account of this wallet`)
    if (!isOwner(caller) && !permittedAccounts(caller).includes(address)) {
      throw new UnauthorizedError(`${caller.origin} has not been granted ${address}; call eth_requestAccounts first`)
    }
  }

  async function approve(key: ApprovalKey, caller: Caller, method: string, params: unknown) {
    if (!(await approvals.ask(key, { method, params, origin: caller.origin }))) throw new UserRejectedRequestError()
  }

  function atomicStatus(address: Hex): 'supported' | 'ready' | 'unsupported' {
    if (!chain.isActive(7702) || chain.code(EXECUTOR_ADDRESS, 'pending') === '0x') return 'unsupported'
    const delegate = delegateOf(chain.code(address, 'pending'))
    if (delegate === EXECUTOR_ADDRESS) return 'supported'
    return delegate === undefined ? 'ready' : 'unsupported'
  }

  let queue: Promise<unknown> = Promise.resolve()
  function serially<T>(work: () => Promise<T>): Promise<T> {
    const result = queue.then(work)
    queue = result.catch(() => {})
    return result
  }

  const core: WalletCore = {
    chain,
    store,
    approvals,
    chainIdHex,
    maxBatchSize: options.maxBatchSize,
    signer,
    authorize,
    permittedAccounts,
    approve,
    atomicStatus,
    serially,
  }

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

  /** EIP-1102 / EIP-2255: an origin gets the wallet's accounts once the user approves. */
  async function grant(caller: Caller, method: string): Promise<void> {
    if (!tokenAccepted(caller)) throw new UnauthorizedError('a bearer token is required')
    if (caller.origin === undefined) return
    if (store.permissions(caller.origin) !== undefined) return
    await approve('eth_requestAccounts', caller, method, [])
    store.grant(caller.origin, addresses, Date.now())
  }

  return {
    accounts: permittedAccounts,

    async requestAccounts(caller) {
      await grant(caller, 'eth_requestAccounts')
      return permittedAccounts(caller)
    },

    async requestPermissions(caller) {
      await grant(caller, 'wallet_requestPermissions')
      return caller.origin === undefined ? [] : permissionsOf(caller.origin)
    },

    getPermissions: (caller) => (caller.origin === undefined || !tokenAccepted(caller) ? [] : permissionsOf(caller.origin)),

    revokePermissions(caller) {
      if (caller.origin !== undefined) store.revoke(caller.origin)
    },

    async sendTransaction(caller, request) {
      authorize(caller, request.from)
      await approve('eth_sendTransaction', caller, 'eth_sendTransaction', [request])
      const account = await signer(request.from)
      return serially(async () => {
        const nonce = request.nonce ?? chain.nextNonce(request.from)
        // As geth and anvil: a transaction that would revert is refused with the revert, not sent.
        const gas = request.gas ?? (await chain.estimateGas({ ...request, nonce }, 'pending'))
        const legacy = request.gasPrice !== undefined
        const suggested = chain.suggestedFees()
        const tip = request.maxPriorityFeePerGas ?? suggested.maxPriorityFeePerGas
        const base = {
          chainId: Number(chain.chainId),
          nonce: Number(nonce),
          to: request.to ?? undefined,
          value: request.value ?? 0n,
          data: request.data,
          gas,
        }
        const serialized = legacy
          ? request.accessList === undefined
            ? await account.signTransaction({ ...base, type: 'legacy', gasPrice: request.gasPrice! })
            : await account.signTransaction({ ...base, type: 'eip2930', gasPrice: request.gasPrice!, accessList: request.accessList })
          : await account.signTransaction({
              ...base,
              type: 'eip1559',
              maxPriorityFeePerGas: tip,
              maxFeePerGas: request.maxFeePerGas ?? suggested.maxFeePerGas - suggested.maxPriorityFeePerGas + tip,
              accessList: request.accessList,
            })
        return chain.sendRawTransaction(hexToBytes(serialized))
      })
    },

    capabilities(caller, address, chainIds) {
      authorize(caller, address)
      if (chainIds !== undefined && !chainIds.includes(chainIdHex)) return {}
      // Stated per chain: viem does not merge a "0x0" entry into the others.
      return { [chainIdHex]: { atomic: { status: atomicStatus(address) }, gasLimitOverride: { supported: true } } }
    },

    batches: createBatches(core),

    watchAsset: (caller, asset) => watchAsset(core, caller, asset),

    watchedAssets(caller, account) {
      const address = account ?? addresses[0]!
      authorize(caller, address)
      return store.assets(address, chainIdHex)
    },

    approvals,

    requireOwner(caller) {
      if (!isOwner(caller)) throw new UnauthorizedError('admin methods are for the owner only')
    },

    close: () => approvals.close(),
  }
}
