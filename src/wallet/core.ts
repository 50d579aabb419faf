import { timingSafeEqual } from 'node:crypto'

import { NoSigningKeyError, NotAuthorizedError, UpgradeRejectedError, UserRejectedError } from './errors.ts'
import { delegateOf } from '../chain/spec/eip7702.ts'
import { createApprovals } from './approvals.ts'
import { EXECUTOR_ADDRESS } from './executor.ts'
import { openWalletStore } from './store.ts'

import type { DatabaseSync } from 'node:sqlite'
import type { PrivateKeyAccount } from 'viem/accounts'
import type { ChainServices } from '../chain/chain.ts'
import type { DevAccount } from '../chain/spec/accounts.ts'
import type { UnsignedTransaction } from '../chain/types.ts'
import type { Hex } from '../hex.ts'
import type { ApprovalDecision, ApprovalKey, Approvals } from './approvals.ts'
import type { WalletStore } from './store.ts'

/**
 * What the wallet needs of a chain: the members it uses of the chain's services. It could front a remote node one
 * day; today it is this process's chain.
 */
export type WalletChain = {
  spec: Pick<ChainServices['spec'], 'chainId' | 'isActive' | 'txGasCap' | 'signTransaction'>
  blocks: Pick<ChainServices['blocks'], 'block' | 'transaction'>
  state: Pick<ChainServices['state'], 'stateAt' | 'code'>
  calls: Pick<ChainServices['calls'], 'call' | 'estimateGas' | 'estimateSequence'>
  pool: Pick<ChainServices['pool'], 'nextNonce' | 'suggestedFees' | 'sendRawTransaction'>
}

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
  /**
   * Browser origins trusted as the developer's own: exact origins (`https://app.example`), or `*` for any. Pages
   * served from this machine (http or https on localhost, 127.0.0.1, [::1] or a *.localhost name) always are.
   */
  allowedOrigins?: readonly string[] | undefined
  /** Answer eth_sign (raw 32-byte hashes), which is off by default as in MetaMask. */
  enableEthSign?: boolean | undefined
  log: (line: string) => void
}

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\]|[a-z0-9-]+(\.[a-z0-9-]+)*\.localhost)(:\d+)?$/i

export type AtomicStatus = 'supported' | 'ready' | 'unsupported'

/**
 * What signs an account's transactions. For an impersonated account it is a stand-in that no one can verify: a
 * signature made of the address, which the chain is told to ignore (`impersonated`).
 */
export type Signer = Pick<PrivateKeyAccount, 'signAuthorization' | 'signMessage' | 'signTypedData' | 'sign'> & {
  impersonated: boolean
  /** The transaction signed and encoded (EIP-2718), as the wallet sends it. */
  signTransaction(transaction: UnsignedTransaction): Promise<Hex>
}

export type Impersonation = {
  start(address: Hex): void
  stop(address: Hex): void
  /** anvil_autoImpersonateAccount: every address is impersonated while it is on. */
  setAuto(enabled: boolean): void
  has(address: Hex): boolean
  /** The addresses impersonated one by one, and the automatic switch, for a snapshot. */
  save(): { addresses: Hex[]; auto: boolean }
  restore(saved: { addresses: Hex[]; auto: boolean }): void
}

function createImpersonation(): Impersonation {
  let addresses = new Set<Hex>()
  let auto = false
  return {
    start: (address) => void addresses.add(address),
    stop: (address) => void addresses.delete(address),
    setAuto(enabled) {
      auto = enabled
    },
    has: (address) => auto || addresses.has(address),
    save: () => ({ addresses: [...addresses], auto }),
    restore(saved) {
      addresses = new Set(saved.addresses)
      auto = saved.auto
    },
  }
}

/** The wallet's accounts, its user (the approval policy) and its rules of who may do what, shared by its parts. */
export type WalletCore = {
  chain: WalletChain
  store: WalletStore
  approvals: Approvals
  /** The wallet's accounts, in the order they were given. */
  addresses: readonly Hex[]
  chainIdHex: Hex
  maxBatchSize: number
  /** Who signs for `address`: its key, or for an impersonated account a stand-in (see impersonatedSigner). */
  signer(address: Hex): Promise<Signer>
  /** anvil_impersonateAccount and friends: accounts the owner may send from without their keys. */
  impersonation: Impersonation
  /** Whether the caller may use the wallet at all: on a non-loopback bind, only with the token. */
  tokenAccepted(caller: Caller): boolean
  /** The owner: no Origin, and the token where one is needed. */
  isOwner(caller: Caller): boolean
  /** 4100 unless the caller may act for `address`. */
  authorize(caller: Caller, address: Hex): void
  /** The accounts this caller may use, the selected one first. */
  permittedAccounts(caller: Caller): Hex[]
  /** Asks the user; a rejection or timeout is 4001. */
  approve(key: ApprovalKey, caller: Caller, method: string, params: unknown, options?: { prompt?: boolean }): Promise<void>
  /** Whether a browser origin is one the developer trusts (see WalletOptions.allowedOrigins). */
  originTrusted(origin: string): boolean
  /**
   * Whether the caller is a browser origin the developer has not said they trust: its prompts wait for a click even
   * under the approve policy.
   */
  untrusted(caller: Caller): boolean
  /** What EIP-5792 calls the account's atomic status on this chain: what its code and the chain allow. */
  atomicStatus(address: Hex): AtomicStatus
  /**
   * The status the owner set for an account (flashchain_setAtomicStatus), which wallet_getCapabilities reports
   * instead, so that a dApp's other paths can be tried; `unsupported` also makes the account's batches refused.
   */
  atomicOverrides: Map<Hex, AtomicStatus>
  /** Runs signing-and-sending steps one at a time, so two of them never take the same nonce. */
  serially<T>(work: () => Promise<T>): Promise<T>
}

/**
 * viem's accounts module, loaded by the first signature of a message, typed data or an EIP-7702 authorization: a
 * chain whose wallet signs only transactions (the chain signs those) does not hold it (7 MB resident, measured on
 * Node 24).
 */
let accountsModule: Promise<typeof import('viem/accounts')> | undefined
const loadAccounts = () => (accountsModule ??= import('viem/accounts'))
let utilsModule: Promise<typeof import('viem/utils')> | undefined
const loadUtils = () => (utilsModule ??= import('viem/utils'))

function noKey(address: Hex): never {
  throw new NoSigningKeyError(`${address} is impersonated: there is no key to sign a message with`)
}

export function createWalletCore(options: WalletOptions): WalletCore {
  const { chain } = options
  const store = openWalletStore(options.database)
  const approvals = createApprovals({ policy: { default: options.approval, methods: {} }, timeoutMs: options.approvalTimeout })
  const addresses = options.accounts.map((account) => account.address)
  const signers = new Map<Hex, Signer>()
  const impersonation = createImpersonation()

  async function signer(address: Hex): Promise<Signer> {
    const signing = signers.get(address)
    if (signing !== undefined) return signing
    const key = options.accounts.find((candidate) => candidate.address === address)
    if (key === undefined) {
      if (impersonation.has(address)) return impersonatedSigner(address)
      throw new NotAuthorizedError(`${address} is not an account of this wallet`)
    }
    const account = keySigner(key.privateKey)
    signers.set(address, account)
    return account
  }

  /**
   * A dev account's signer. Transactions, what nearly every request signs, are signed by the chain (libsecp256k1,
   * with nothing to load); the rest by viem's account, loaded at its first use.
   */
  function keySigner(privateKey: Hex): Signer {
    let account: Promise<PrivateKeyAccount> | undefined
    const viemAccount = () => (account ??= loadAccounts().then(({ privateKeyToAccount }) => privateKeyToAccount(privateKey)))
    return {
      impersonated: false,
      signTransaction: async (transaction) => chain.spec.signTransaction(transaction, privateKey),
      signAuthorization: async (authorization) => (await viemAccount()).signAuthorization(authorization),
      signMessage: async (message) => (await viemAccount()).signMessage(message),
      signTypedData: (async (typedData: Parameters<PrivateKeyAccount['signTypedData']>[0]) =>
        (await viemAccount()).signTypedData(typedData)) as PrivateKeyAccount['signTypedData'],
      sign: async (parameters) => (await viemAccount()).sign!(parameters),
    }
  }

  async function impersonatedSigner(address: Hex): Promise<Signer> {
    const { serializeTransaction } = await loadUtils()
    // r is the address itself, so that two impersonated accounts sending the same fields send different hashes.
    const signature = { r: `0x${address.slice(2).padStart(64, '0')}`, s: '0x1', yParity: 0, v: 27n } as const
    return {
      impersonated: true,
      signTransaction: async (transaction) => serializeTransaction(transaction as Parameters<typeof serializeTransaction>[0], signature),
      signAuthorization: () => {
        throw new UpgradeRejectedError(
          `${address} is impersonated: there is no key to sign its EIP-7702 authorization, so it cannot send an atomic batch`,
        )
      },
      // A message signature is checked by whoever receives it: a stand-in would only mislead.
      signMessage: () => noKey(address),
      signTypedData: () => noKey(address),
      sign: () => noKey(address),
    }
  }

  /** On a non-loopback bind, nothing of the wallet answers without the token (docs/wallet.md, "Who may use it"). */
  function tokenAccepted(caller: Caller): boolean {
    if (options.loopback) return true
    const given = caller.authorization?.match(/^bearer[ \t]+(\S+)[ \t]*$/i)?.[1]
    if (options.walletToken === undefined || given === undefined) return false
    // The scheme is case-insensitive (RFC 9110); the token is compared in constant time.
    const expected = Buffer.from(options.walletToken)
    const actual = Buffer.from(given)
    return expected.length === actual.length && timingSafeEqual(expected, actual)
  }

  const isOwner = (caller: Caller) => caller.origin === undefined && tokenAccepted(caller)

  function permittedAccounts(caller: Caller): Hex[] {
    if (!tokenAccepted(caller)) return []
    // The owner also acts for the accounts it impersonates, as anvil lists them among eth_accounts.
    if (caller.origin === undefined) return [...addresses, ...impersonation.save().addresses.filter((address) => !addresses.includes(address))]
    const granted = store.permissions(caller.origin)?.accounts ?? []
    return addresses.filter((address) => granted.includes(address))
  }

  let queue: Promise<unknown> = Promise.resolve()
  const allowedOrigins = new Set((options.allowedOrigins ?? []).map((origin) => origin.toLowerCase()))
  const originTrusted = (origin: string) => allowedOrigins.has('*') || allowedOrigins.has(origin.toLowerCase()) || LOOPBACK_ORIGIN.test(origin)

  return {
    chain,
    store,
    approvals,
    addresses,
    chainIdHex: `0x${chain.spec.chainId.toString(16)}`,
    maxBatchSize: options.maxBatchSize,
    signer,
    impersonation,
    tokenAccepted,
    isOwner,
    permittedAccounts,

    authorize(caller, address) {
      if (!tokenAccepted(caller)) throw new NotAuthorizedError(options.loopback ? undefined : 'a bearer token is required')
      if (!addresses.includes(address) && isOwner(caller) && impersonation.has(address)) return
      if (!addresses.includes(address)) throw new NotAuthorizedError(`${address} is not an account of this wallet`)
      if (!isOwner(caller) && !permittedAccounts(caller).includes(address)) {
        throw new NotAuthorizedError(`${caller.origin} has not been granted ${address}; call eth_requestAccounts first`)
      }
    },

    async approve(key, caller, method, params, approveOptions) {
      if (!(await approvals.ask(key, { method, params, origin: caller.origin }, approveOptions))) throw new UserRejectedError()
    },

    originTrusted,
    untrusted: (caller) => caller.origin !== undefined && !originTrusted(caller.origin),

    atomicOverrides: new Map(),

    atomicStatus(address) {
      if (!chain.spec.isActive(7702) || chain.state.code(EXECUTOR_ADDRESS, 'pending') === '0x') return 'unsupported'
      const delegate = delegateOf(chain.state.code(address, 'pending'))
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
