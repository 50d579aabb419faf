import { randomBytes } from 'node:crypto'

import { keccak256 } from 'ox/Hash'

import { GasAllowanceExceededError, InvalidInputError } from '../chain/errors.ts'
import { delegateOf } from '../chain/spec/eip7702.ts'
import { hexToBytes, toQuantity } from '../hex.ts'
import {
  BatchTooLargeError,
  DuplicateBatchIdError,
  UnknownBatchError,
  UnsupportedCapabilityError,
  UnsupportedChainError,
  UnsupportedVersionError,
  UpgradeRejectedError,
} from './errors.ts'
import { EXECUTOR_ADDRESS, encodeExecute } from './executor.ts'

import type { SequencePlan, TransactionLocation } from '../chain/types.ts'
import type { CallRequest } from '../chain/execution/executor.ts'
import type { Hex } from '../hex.ts'
import type { BatchRecord, StoredCall } from './store.ts'
import type { Caller, WalletCore } from './core.ts'

type Capabilities = Record<string, unknown>

export type BatchCall = { to: Hex; value: bigint; data: Hex; capabilities?: Capabilities }

/** wallet_sendCalls' parameters after the schema (EIP-5792). */
export type SendCallsRequest = {
  version: string
  id?: string
  from: Hex
  chainId: Hex
  atomicRequired: boolean
  calls: BatchCall[]
  capabilities?: Capabilities
}

/** EIP-5792's status code of a batch: pending, confirmed, offchain failure, reverted, partially reverted. */
export type BatchStatusCode = 100 | 200 | 400 | 500 | 600

/** Where a batch stands, and its transactions sealed so far (rpc/format.ts writes it as wallet_getCallsStatus' answer). */
export type BatchStatus = {
  id: Hex
  chainId: Hex
  atomic: boolean
  status: BatchStatusCode
  sealed: SealedLocation[]
}

/** wallet_sendCalls' answer: `id` for viem, `batchId` and `status` as the method's specification shows them. */
export type SendCallsResult = { id: string; batchId: string; status: 'pending' }

export type SealedLocation = Extract<TransactionLocation, { kind: 'sealed' | 'preconfirmed' }>

/** A batch as the console page lists it: who sent what, and where it stands. */
export type BatchSummary = {
  id: Hex
  from: Hex
  chainId: Hex
  atomic: boolean
  status: BatchStatusCode
  calls: StoredCall[]
  transactions: Hex[]
  createdAt: number
}

export type Batches = {
  send(caller: Caller, request: SendCallsRequest): Promise<SendCallsResult>
  status(caller: Caller, id: string): BatchStatus
  /** The latest batches of every account, newest first; for the owner. */
  recent(limit: number): BatchSummary[]
  /** wallet_showCallsStatus: nothing to show headless, but the id must exist. */
  show(caller: Caller, id: string): null
}

/** viem marks the ids it makes up for wallets without EIP-5792 with this suffix; ours must never look like one. */
const VIEM_FALLBACK_MARKER = '5792'.repeat(16)

/** Capabilities the wallet honours, by where they may appear. */
const supported = { batch: new Set(['dataSuffix']), call: new Set(['gasLimitOverride']) }

function unsupportedCapability(capabilities: Capabilities | undefined, known: Set<string>): string | undefined {
  for (const [name, value] of Object.entries(capabilities ?? {})) {
    const optional = typeof value === 'object' && value !== null && (value as { optional?: unknown }).optional === true
    if (!known.has(name) && !optional) return name
  }
  return undefined
}

function mintId(): Hex {
  for (;;) {
    const id = `0x${randomBytes(32).toString('hex')}` as Hex
    if (!id.endsWith(VIEM_FALLBACK_MARKER)) return id
  }
}

export function createBatches(core: WalletCore): Batches {
  const { chain, store } = core

  /** The per-call gas limits, checked against what a block can hold (docs/wallet.md: else the batch is an invalid input). */
  function gasLimits(request: SendCallsRequest, blockGasLimit: bigint): (bigint | undefined)[] {
    return request.calls.map((call, index) => {
      const override = call.capabilities?.gasLimitOverride as { value?: bigint } | undefined
      if (override?.value === undefined) return undefined
      if (override.value > blockGasLimit) {
        throw new InvalidInputError(
          `calls.${index}.capabilities.gasLimitOverride.value: ${override.value} exceeds the block gas limit ${blockGasLimit}`,
          { input: 'batch' },
        )
      }
      return override.value
    })
  }

  function atomicRequest(request: SendCallsRequest, limits: (bigint | undefined)[], authorization: CallRequest['authorizationList']): CallRequest {
    return {
      from: request.from,
      to: request.from,
      value: 0n,
      data: encodeExecute(request.calls.map((call, i) => ({ to: call.to, value: call.value, data: call.data, gasLimit: limits[i] }))),
      ...(authorization === undefined ? {} : { type: 4, authorizationList: authorization }),
    }
  }

  /** EIP-7702: the account delegates to the executor; authorization nonce = tx nonce + 1, as the tx bumps it first. */
  async function signUpgrade(from: Hex, txNonce: bigint): Promise<NonNullable<CallRequest['authorizationList']>> {
    const signed = await (await core.signer(from)).signAuthorization({
      address: EXECUTOR_ADDRESS,
      chainId: Number(chain.spec.chainId),
      nonce: Number(txNonce + 1n),
    })
    return [
      {
        chainId: chain.spec.chainId,
        address: EXECUTOR_ADDRESS,
        nonce: txNonce + 1n,
        yParity: signed.yParity ?? 0,
        r: BigInt(signed.r),
        s: BigInt(signed.s),
      },
    ]
  }

  async function send(caller: Caller, request: SendCallsRequest) {
    // The order of docs/wallet.md: (1) the schema, checked by the RPC layer; (2) version; (3) authorization; (4) chain;
    // (5) capabilities; (6) size and gas; (7) duplicate id; (8) atomicity; (9) the user, then the upgrade's prompt.
    if (request.version !== '2.0.0') throw new UnsupportedVersionError(request.version)
    core.authorize(caller, request.from)
    if (request.chainId !== core.chainIdHex) {
      throw new InvalidInputError(`Chain ID must match the wallet's selected network: got ${request.chainId}, expected ${core.chainIdHex}`)
    }
    const unsupported =
      unsupportedCapability(request.capabilities, supported.batch) ??
      request.calls.map((call) => unsupportedCapability(call.capabilities, supported.call)).find((name) => name !== undefined)
    if (unsupported !== undefined) throw new UnsupportedCapabilityError(unsupported)
    // ERC-8021's attribution, checked by the schema: its bytes end each call's data.
    const suffix = (request.capabilities?.dataSuffix as { value: Hex } | undefined)?.value
    if (suffix !== undefined && suffix !== '0x') {
      request = { ...request, calls: request.calls.map((call) => ({ ...call, data: `${call.data}${suffix.slice(2)}` as Hex })) }
    }

    const pending = chain.blocks.block('pending')
    const blockGasLimit = pending?.kind === 'pending' ? pending.env.gasLimit : 0n
    const limits = gasLimits(request, blockGasLimit)
    if (request.calls.length > core.maxBatchSize) {
      throw new BatchTooLargeError(`${request.calls.length} calls, at most ${core.maxBatchSize}`)
    }
    const txCap = chain.spec.txGasCap()
    const perTransaction = txCap !== undefined && txCap < blockGasLimit ? txCap : blockGasLimit
    const atomic = request.atomicRequired
    if (atomic) {
      const limited = limits.reduce<bigint>((sum, limit) => sum + (limit ?? 0n), 0n)
      if (limited > perTransaction) {
        throw new BatchTooLargeError(`the calls' gas limits add up to ${limited}, more than one transaction may carry (${perTransaction})`)
      }
    }
    const status = core.atomicStatus(request.from)
    const delegate = delegateOf(chain.state.code(request.from, 'pending'))
    const needsUpgrade = status === 'ready'

    let plans: SequencePlan[] = []
    if (!atomic) {
      plans = await chain.calls.estimateSequence(
        request.calls.map((call, i) => ({ request: { from: request.from, to: call.to, value: call.value, data: call.data }, gas: limits[i] })),
        'pending',
      )
    } else if (status !== 'unsupported') {
      // The estimate runs on the pending state, which has not seen the account's pooled transactions: its
      // authorization must be valid there, whatever nonce the real one will carry. The gas is the same.
      const pendingNonce = chain.state.stateAt('pending').account(request.from)?.nonce ?? 0n
      const authorization = needsUpgrade ? await signUpgrade(request.from, pendingNonce) : undefined
      try {
        plans = await chain.calls.estimateSequence([{ request: atomicRequest(request, limits, authorization) }], 'pending')
      } catch (error) {
        if (!(error instanceof GasAllowanceExceededError)) throw error
        throw new BatchTooLargeError(`it needs more gas than one transaction may carry (${perTransaction})`)
      }
    }
    const total = plans.reduce((sum, step) => sum + step.gas, 0n)
    if (total > blockGasLimit) throw new BatchTooLargeError(`it needs ${total} gas, more than a block holds (${blockGasLimit})`)

    if (request.id !== undefined && store.hasBatch(request.from, request.id as Hex)) throw new DuplicateBatchIdError()

    // The owner said this account has no batches (flashchain_setAtomicStatus): answer as a wallet on a chain it
    // cannot batch on does, in the words viem's experimental_fallback recognizes, so that the dApp's fallback runs.
    if (core.atomicOverrides.get(request.from) === 'unsupported') throw new UnsupportedChainError()
    if (atomic && status === 'unsupported') {
      if (!chain.spec.isActive(7702) || chain.state.code(EXECUTOR_ADDRESS, 'pending') === '0x') throw new UnsupportedChainError()
      throw new UpgradeRejectedError(`${request.from} is delegated to ${delegate ?? 'code'} that this wallet does not trust`)
    }
    // The request's own prompt comes first, as a wallet shows the batch before it offers the upgrade that carries
    // it: rejecting the request is 4001, rejecting only the upgrade is 5750.
    await core.approve('wallet_sendCalls', caller, 'wallet_sendCalls', [request])
    if (atomic && needsUpgrade) {
      const upgrade = { account: request.from, delegate: EXECUTOR_ADDRESS, batch: request }
      if (!(await core.approvals.ask('upgrade', { method: 'wallet_sendCalls', params: [upgrade], origin: caller.origin }))) {
        throw new UpgradeRejectedError()
      }
    }

    return core.serially(async () => {
      // Between the estimate and now the account may have sent more: nonces and the authorization are fresh.
      if (request.id !== undefined && store.hasBatch(request.from, request.id as Hex)) throw new DuplicateBatchIdError()
      const nonce = chain.pool.nextNonce(request.from)
      const upgrade = atomic && core.atomicStatus(request.from) === 'ready'
      const signer = await core.signer(request.from)
      const { maxFeePerGas, maxPriorityFeePerGas } = chain.pool.suggestedFees()
      const fees = { maxFeePerGas, maxPriorityFeePerGas }
      const chainId = Number(chain.spec.chainId)
      let serialized: Hex[]
      if (atomic) {
        const authorization = upgrade ? await signUpgrade(request.from, nonce) : undefined
        const call = atomicRequest(request, limits, authorization)
        serialized = [
          await signer.signTransaction({
            chainId,
            nonce: Number(nonce),
            to: request.from,
            data: call.data,
            gas: plans[0]!.gas,
            ...fees,
            ...(authorization === undefined
              ? { type: 'eip1559' as const }
              : {
                  type: 'eip7702' as const,
                  authorizationList: authorization.map((auth) => ({
                    address: auth.address,
                    chainId: Number(auth.chainId),
                    nonce: Number(auth.nonce),
                    yParity: auth.yParity,
                    r: toQuantity(auth.r),
                    s: toQuantity(auth.s),
                  })),
                }),
          }),
        ]
      } else {
        serialized = await Promise.all(
          request.calls.map((call, i) =>
            signer.signTransaction({
              type: 'eip1559',
              chainId,
              nonce: Number(nonce) + i,
              to: call.to,
              value: call.value,
              data: call.data,
              gas: plans[i]!.gas,
              ...fees,
            }),
          ),
        )
      }

      const hashes = serialized.map((raw) => keccak256(raw))
      const id = (request.id as Hex | undefined) ?? mintId()
      const record: BatchRecord = {
        sender: request.from,
        id,
        atomic,
        chainId: core.chainIdHex,
        createdAt: Date.now(),
        transactions: hashes,
        calls: request.calls.map((call) => ({ to: call.to, value: toQuantity(call.value), data: call.data })),
        failure: null,
      }
      // Durable before anything is sent: the status is queryable the moment the reply leaves.
      store.addBatch(record)
      for (const [i, raw] of serialized.entries()) {
        try {
          await chain.pool.sendRawTransaction(hexToBytes(raw), signer.impersonated ? request.from : undefined)
        } catch (error) {
          if (i === 0) {
            store.removeBatch(request.from, id)
            throw error
          }
          store.setBatchFailure(request.from, id, error instanceof Error ? error.message : String(error))
          break
        }
      }
      return { id, batchId: id, status: 'pending' as const }
    })
  }

  function find(caller: Caller, id: string): BatchRecord {
    const visible = core.permittedAccounts(caller)
    const batch = store.findBatches(id as Hex).find((candidate) => visible.includes(candidate.sender))
    if (batch === undefined) throw new UnknownBatchError()
    return batch
  }

  /** Where a batch's transactions are, and its EIP-5792 status code. */
  function standing(batch: BatchRecord): { code: BatchStatusCode; sealed: SealedLocation[] } {
    const locations = batch.transactions.map((hash) => chain.blocks.transaction(hash))
    const sealed = locations.filter((location): location is SealedLocation => location?.kind === 'sealed')
    const lost = locations.some((location) => location === undefined) || (batch.failure !== null && locations.length < batch.transactions.length)
    const reverted = sealed.filter((location) => location.receipt.status === 0).length
    let code: BatchStatusCode
    if (sealed.length === 0 && (lost || batch.failure !== null)) code = 400
    else if (sealed.length < locations.length && !lost && batch.failure === null) code = 100
    else if (reverted === 0 && sealed.length === batch.transactions.length) code = 200
    else if (reverted === sealed.length && (batch.atomic || sealed.length === batch.transactions.length)) code = 500
    else code = 600
    return { code, sealed }
  }

  function status(caller: Caller, id: string): BatchStatus {
    const batch = find(caller, id)
    const { code, sealed } = standing(batch)
    return { id: batch.id, chainId: batch.chainId, atomic: batch.atomic, status: code, sealed }
  }

  return {
    send,
    status,
    recent: (limit) =>
      store.recentBatches(limit).map((batch) => ({
        id: batch.id,
        from: batch.sender,
        chainId: batch.chainId,
        atomic: batch.atomic,
        status: standing(batch).code,
        calls: batch.calls,
        transactions: batch.transactions,
        createdAt: batch.createdAt,
      })),
    show(caller, id) {
      find(caller, id)
      return null
    },
  }
}
