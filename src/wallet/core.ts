import { UnauthorizedError, UserRejectedRequestError } from '../errors.ts'
import { delegateOf } from '../chain/spec/eip7702.ts'
import { createApprovals } from './approvals.ts'
import { EXECUTOR_ADDRESS } from './executor.ts'
import { openWalletStore } from './store.ts'

import type { DatabaseSync } from 'node:sqlite'
import type { PrivateKeyAccount } from 'viem/accounts'
import type { Chain } from '../chain/chain.ts'
import type { DevAccount } from '../chain/spec/accounts.ts'
import type { Hex } from '../hex.ts'
import type { ApprovalDecision, ApprovalKey, Approvals } from './approvals.ts'
import type { WalletStore } from './store.ts'

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

export type AtomicStatus = 'supported' | 'ready' | 'unsupported'

/** The wallet's accounts, its user (the approval policy) and its rules of who may do what, shared by its parts. */
export type WalletCore = {
  chain: WalletChain
  store: WalletStore
  approvals: Approvals
  /** The wallet's accounts, in the order they were given. */
  addresses: readonly Hex[]
  chainIdHex: Hex
  maxBatchSize: number
  signer(address: Hex): Promise<PrivateKeyAccount>
  /** Whether the caller may use the wallet at all: on a non-loopback bind, only with the token. */
  tokenAccepted(caller: Caller): boolean
  /** The owner: no Origin, and the token where one is needed. */
  isOwner(caller: Caller): boolean
  /** 4100 unless the caller may act for `address`. */
  authorize(caller: Caller, address: Hex): void
  /** The accounts this caller may use, the selected one first. */
  permittedAccounts(caller: Caller): Hex[]
  /** Asks the user; a rejection or timeout is 4001. */
  approve(key: ApprovalKey, caller: Caller, method: string, params: unknown): Promise<void>
  /** What EIP-5792 calls the account's atomic status on this chain. */
  atomicStatus(address: Hex): AtomicStatus
  /** Runs signing-and-sending steps one at a time, so two of them never take the same nonce. */
  serially<T>(work: () => Promise<T>): Promise<T>
}

/**
 * viem's accounts module, loaded by the first signature: a chain whose wallet never signs does not hold it (7 MB
 * resident, measured on Node 24).
 */
let accountsModule: Promise<typeof import('viem/accounts')> | undefined
const loadAccounts = () => (accountsModule ??= import('viem/accounts'))

export function createWalletCore(options: WalletOptions): WalletCore {
  const { chain } = options
  const store = openWalletStore(options.database)
  const approvals = createApprovals({ policy: { default: options.approval, methods: {} }, timeoutMs: options.approvalTimeout })
  const addresses = options.accounts.map((account) => account.address)
  const signers = new Map<Hex, PrivateKeyAccount>()

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

  /** On a non-loopback bind, nothing of the wallet answers without the token (docs/wallet.md, "Who may use it"). */
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

  let queue: Promise<unknown> = Promise.resolve()

  return {
    chain,
    store,
    approvals,
    addresses,
    chainIdHex: `0x${chain.chainId.toString(16)}`,
    maxBatchSize: options.maxBatchSize,
    signer,
    tokenAccepted,
    isOwner,
    permittedAccounts,

    authorize(caller, address) {
      if (!tokenAccepted(caller)) throw new UnauthorizedError(options.loopback ? undefined : 'a bearer token is required')
      if (!addresses.includes(address)) throw new UnauthorizedError(`${address} is not an account of this wallet`)
      if (!isOwner(caller) && !permittedAccounts(caller).includes(address)) {
        throw new UnauthorizedError(`${caller.origin} has not been granted ${address}; call eth_requestAccounts first`)
      }
    },

    async approve(key, caller, method, params) {
      if (!(await approvals.ask(key, { method, params, origin: caller.origin }))) throw new UserRejectedRequestError()
    },

    atomicStatus(address) {
      if (!chain.isActive(7702) || chain.code(EXECUTOR_ADDRESS, 'pending') === '0x') return 'unsupported'
      const delegate = delegateOf(chain.code(address, 'pending'))
      if (delegate === EXECUTOR_ADDRESS) return 'supported'
      return delegate === undefined ? 'ready' : 'unsupported'
    },

    serially(work) {
      const result = queue.then(work)
      queue = result.catch(() => {})
      return result
    },
  }
}
