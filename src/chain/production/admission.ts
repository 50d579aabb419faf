import { RLP } from '@ethereumjs/rlp'
import { Capability, createBlob4844TxFromSerializedNetworkWrapper, createTxFromRLP, getMinimumGasLimit } from '@ethereumjs/tx'
import { KECCAK256_NULL, bytesToBigInt, bytesToHex, createAddressFromString, eoaCode7702RecoverAuthority, equalsBytes } from '@ethereumjs/util'

import { TransactionRejectedError } from '../errors.ts'
import { decodeError } from '../gethErrors.ts'
import { isDelegation } from '../spec/eip7702.ts'
import { pendingIndexOf } from '../blocks/types.ts'
import { DEPOSIT_TX_TYPE, decodeDeposit } from '../opstack/deposit.ts'
import { l1Cost, operatorFee } from '../opstack/l1Cost.ts'
import { l1FeeParamsOf } from '../opstack/l1Values.ts'

import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Hex } from '../../hex.ts'
import type { ChainStore } from '../storage/chainStore.ts'
import type { DepositTransaction } from '../opstack/deposit.ts'
import type { OpStackBlocks } from '../opstack/deposits.ts'
import type { StateReader } from '../state/types.ts'
import type { Forks } from '../spec/forks.ts'
import type { BlockEnv } from '../types.ts'
import type { PendingSnapshot } from '../blocks/types.ts'
import type { Pool } from './txpool.ts'

const EMPTY = new Uint8Array(0)

export type AdmissionOptions = {
  chainId: bigint
  forks: Forks
  /** The chain's Common, copied once per hardfork to decode transactions of the pending block. */
  common: Common
  pool: Pool
  store: ChainStore
  pending: () => PendingSnapshot
  /** Whether a transaction with this hash is sealed already. */
  isSealed: (hash: Hex) => boolean
  /** An OP Stack chain: a transaction must also afford its L1 data fee and operator fee, as op-geth's pool checks. */
  opStack?: boolean
}

/**
 * The door of the pool: decodes a raw transaction and checks it against the pending state as geth's txpool does,
 * refusing with the reasons geth tells apart (TransactionRejection), before it is kept. A transaction whose hash was returned is in the store's pool table.
 */
export type Admission = {
  /** `impersonated`: left unfrozen, so that admit can tell it who it is from. */
  decode(raw: Uint8Array, impersonated?: boolean): TypedTransaction
  /**
   * `impersonating`: the transaction is from that account, whose key no one has; its signature is ignored.
   * `restored`: it is back from the store's pool table at a restart, which holds it already.
   */
  admit(tx: TypedTransaction, raw: Uint8Array, impersonating?: Hex, restored?: boolean): Hex
  /** Set on a chain without EIP-1559 (anvil_setMinGasPrice): a lower gas price is refused as underpriced. */
  minGasPrice: bigint | undefined
  /** The sender's next nonce: the pending state's, then past its queued pool transactions. */
  nextNonce(address: Hex): bigint
}

export function createAdmission(options: AdmissionOptions): Admission {
  const { chainId, forks, pool, store } = options

  /** One frozen-in-time Common per hardfork, for decoding transactions of a given block. */
  const commons = new Map<string, Common>()
  function commonAt(env: BlockEnv): Common {
    const hardfork = forks.at(env).hardfork()
    let fork = commons.get(hardfork)
    if (fork === undefined) {
      fork = options.common.copy()
      fork.setHardfork(hardfork)
      commons.set(hardfork, fork)
    }
    return fork
  }

  function decode(raw: Uint8Array, impersonated = false): TypedTransaction {
    const { env } = options.pending()
    try {
      const decodeOptions = { common: commonAt(env), allowUnlimitedInitCodeSize: false, freeze: !impersonated }
      // A blob transaction arrives in its network form, with blobs, commitments and proofs (EIP-4844, EIP-7594).
      if (raw[0] === 3 && Array.isArray(RLP.decode(raw.subarray(1))[0])) return createBlob4844TxFromSerializedNetworkWrapper(raw, decodeOptions)
      return createTxFromRLP(raw, decodeOptions)
    } catch (error) {
      throw decodeError(error instanceof Error ? error.message : String(error), { chainId, blockGasLimit: env.gasLimit })
    }
  }

  /** EIP-7702: each valid authorization the sender signs for itself bumps its nonce once more. */
  function nonceAfter(tx: TypedTransaction, sender: Hex): bigint {
    let next = tx.nonce + 1n
    if (!tx.supports(Capability.EIP7702EOACode)) return next
    for (const authorization of (tx as unknown as { authorizationList: Uint8Array[][] }).authorizationList) {
      const [authChainId, , nonce] = authorization
      const chainMatches = authChainId!.length === 0 || bytesToBigInt(authChainId!) === chainId
      if (!chainMatches || bytesToBigInt(nonce!) !== next) continue
      try {
        if (eoaCode7702RecoverAuthority(authorization as never).toString() === sender) next++
      } catch {
        // An authorization that does not recover is skipped by execution too.
      }
    }
    return next
  }

  function admit(tx: TypedTransaction, raw: Uint8Array, impersonating?: Hex, restored = false): Hex {
    // The EVM asks the transaction for its sender; an impersonated one answers without recovering a signature.
    if (impersonating !== undefined) tx.getSenderAddress = () => createAddressFromString(impersonating)
    const hash = bytesToHex(tx.hash()) as Hex
    const pending = options.pending()
    if (options.isSealed(hash) || pool.get(hash) !== undefined || pendingIndexOf(pending, hash) !== undefined)
      throw new TransactionRejectedError({ kind: 'alreadyKnown' })
    if (tx.supports(Capability.EIP155ReplayProtection) && tx.common.chainId() !== chainId) {
      throw new TransactionRejectedError({ kind: 'invalidChainId', expected: chainId, got: tx.common.chainId() })
    }
    let sender: Hex
    try {
      sender = tx.getSenderAddress().toString() as Hex
    } catch (error) {
      throw new TransactionRejectedError({ kind: 'invalidSender', detail: error instanceof Error ? error.message : String(error) })
    }
    if (admission.minGasPrice !== undefined && 'gasPrice' in tx && (tx.gasPrice as bigint) < admission.minGasPrice)
      throw new TransactionRejectedError({ kind: 'underpriced' })
    // An OP Stack chain takes no blob transactions (Ecotone), as op-geth's pool refuses them.
    if (options.opStack === true && tx.type === 3) throw new TransactionRejectedError({ kind: 'typeNotSupported' })
    if (tx.gasLimit > pending.env.gasLimit) throw new TransactionRejectedError({ kind: 'exceedsBlockGasLimit' })
    const cap = forks.txGasCap(pending.env)
    if (cap !== undefined && tx.gasLimit > cap) throw new TransactionRejectedError({ kind: 'gasLimitTooHigh', cap, gas: tx.gasLimit })
    const intrinsic = tx.getIntrinsicGas()
    if (tx.gasLimit < intrinsic) throw new TransactionRejectedError({ kind: 'intrinsicGasTooLow', gas: tx.gasLimit, minimum: intrinsic })
    const floor = getMinimumGasLimit(tx)
    if (tx.gasLimit < floor) throw new TransactionRejectedError({ kind: 'floorDataGas', gas: tx.gasLimit, minimum: floor })

    const account = pending.state.account(sender)
    const stateNonce = account?.nonce ?? 0n
    if (tx.nonce < stateNonce) throw new TransactionRejectedError({ kind: 'nonceTooLow', address: sender, txNonce: tx.nonce, stateNonce })
    const balance = account?.balance ?? 0n
    const cost = tx.getUpfrontCost()
    const maxCost =
      ('maxFeePerGas' in tx ? tx.gasLimit * tx.maxFeePerGas + tx.value : cost) + (options.opStack === true ? rollupCost(tx, pending.state) : 0n)
    if (balance < maxCost) throw new TransactionRejectedError({ kind: 'insufficientFunds', address: sender, have: balance, want: maxCost })
    // An impersonated account may have code: anvil lets a test send as a contract.
    if (impersonating === undefined && account !== undefined && !equalsBytes(account.codeHash, KECCAK256_NULL)) {
      const code = pending.state.code(bytesToHex(account.codeHash) as Hex) ?? EMPTY
      // EIP-3607, relaxed by EIP-7702 for delegated accounts.
      if (!isDelegation(code)) throw new TransactionRejectedError({ kind: 'senderNotEOA', address: sender })
    }

    const entry = { tx, hash, sender, raw, nonceAfter: nonceAfter(tx, sender), impersonated: impersonating !== undefined }
    const replaced = pool.add(entry)
    // Durable before the hash is returned: a crash after this line loses nothing. The recovered key goes with it.
    if (!restored) store.addPoolTransaction(hash, raw, impersonating, impersonating === undefined ? tx.cache.senderPubKey : undefined)
    if (replaced !== undefined) store.removePoolTransactions([replaced.hash])
    return hash
  }

  const admission: Admission = {
    decode,
    admit,
    minGasPrice: undefined,
    nextNonce(address) {
      const stateNonce = options.pending().state.account(address)?.nonce ?? 0n
      return pool.nextNonce(address, stateNonce)
    },
  }
  return admission
}

/** What a transaction pays an OP Stack chain besides its gas: its L1 data fee, and the operator fee of its gas limit. */
function rollupCost(tx: TypedTransaction, state: StateReader): bigint {
  const params = l1FeeParamsOf(state)
  return l1Cost(tx.serialize(), params).fee + operatorFee(tx.gasLimit, params)
}

/** Transactions whose hash was returned before a restart are back in the pool, in arrival order. */
export function restorePool(
  admission: Admission,
  store: ChainStore,
  log: (line: string) => void,
  deposits?: { common: Common; blocks: OpStackBlocks },
): void {
  const restored: DepositTransaction[] = []
  for (const { hash, raw, sender, publicKey } of store.poolTransactions()) {
    try {
      // An OP Stack deposit waits for the next block's start, not in the pool; all go back in their order, below.
      if (raw[0] === DEPOSIT_TX_TYPE && deposits !== undefined) {
        restored.push(decodeDeposit(raw, deposits.common))
        continue
      }
      const tx = admission.decode(raw, sender !== undefined)
      // The key recovered when it was first admitted: no signature is recovered again (a frozen transaction reads it).
      if (publicKey !== undefined && sender === undefined) tx.cache.senderPubKey = publicKey
      admission.admit(tx, raw, sender, true)
    } catch (error) {
      store.removePoolTransactions([hash])
      log(`dropped a stored pool transaction: ${error instanceof Error ? error.message : error}`)
    }
  }
  deposits?.blocks.requeue(restored)
}
