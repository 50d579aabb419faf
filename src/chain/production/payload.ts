import { createTxFromRLP } from '@ethereumjs/tx'
import { bytesToHex } from '@ethereumjs/util'
import { buildBlock, createVM } from '@ethereumjs/vm'
import * as Address from 'ox/Address'

import { ExecutionFailedError, InvalidInputError, RefusedError, TransactionRejectedError } from '../errors.ts'
import { nextEnv } from '../blocks/env.ts'
import { createBlockchain, setHardforkFor } from '../execution/executor.ts'
import { createOverlay } from '../state/overlay.ts'
import { buildStateTrie } from '../state/proof.ts'
import { FlatStateManager } from '../state/stateManager.ts'
import { envHeaderData } from './startBuilder.ts'

import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Hex } from '../../hex.ts'
import type { SealedBlock } from '../blocks/types.ts'
import type { BlockHashes } from '../execution/executor.ts'
import type { StateHistory } from '../state/history.ts'
import type { BlockPlan } from './plan.ts'

/** engine_forkchoiceUpdatedV3's PayloadAttributesV3: the consensus layer's part of a new block. */
export type PayloadAttributes = {
  timestamp: bigint
  prevRandao: Hex
  suggestedFeeRecipient: Hex
  withdrawals: { index: bigint; validatorIndex: bigint; address: Hex; amount: bigint }[]
  parentBeaconBlockRoot: Hex | undefined
}

/** What testing_buildBlockV1 asks for: a block on `parentHash`, of those transactions (undefined: the pool's). */
export type PayloadRequest = {
  parentHash: Hex
  attributes: PayloadAttributes
  transactions: Uint8Array[] | undefined
  extraData: Uint8Array | undefined
}

/** A block built and not kept: the block, what it pays its fee recipient, and its EIP-7685 requests. */
export type BuiltPayload = {
  block: Block
  /** Wei the fee recipient earns from the block's priority fees. */
  blockValue: bigint
  /** Each non-empty request list, its type byte first, as engine_getPayloadV4 lists them. */
  executionRequests: Hex[]
}

export type PayloadHost = {
  common: Common
  history: StateHistory
  blockHashes: BlockHashes
  head(): SealedBlock
  plan: BlockPlan
  blockGasLimit(): bigint
  /** The transactions the next block would take from the node, in order: pre-confirmed ones first, then the pool's. */
  waiting(): TypedTransaction[]
}

/**
 * testing_buildBlockV1 (execution-apis): builds the block that would follow the head with the consensus layer's
 * attributes and the given transactions, as the producer builds one (system calls, withdrawals, requests, every
 * root), on a state of its own, and keeps nothing: the head, the pool and the block being built stay as they were.
 * As geth's, the parent must be the head. A given transaction that cannot run fails the call with geth's words; one
 * taken from the node (no list given) that cannot run is left out, as a miner leaves it out.
 */
export async function buildPayload(host: PayloadHost, request: PayloadRequest): Promise<BuiltPayload> {
  const head = host.head()
  if (request.parentHash !== head.hash) throw new RefusedError('parentHash is not current head')
  const { attributes } = request
  const parent = head.block
  if (attributes.timestamp <= parent.header.timestamp) {
    throw new InvalidInputError(`invalid timestamp: ${attributes.timestamp} is not after the parent's, ${parent.header.timestamp}`)
  }
  const common = host.common.copy()
  const env = host.plan.apply(nextEnv(parent, common, Number(attributes.timestamp) * 1000, host.blockGasLimit()))
  // A payload is for engine_newPayload, which holds it to EIP-1559's gas limit bound: the limit the producer would
  // give the next block is a target to move towards.
  env.gasLimit = boundedGasLimit(parent.header.gasLimit, env.gasLimit)
  env.coinbase = attributes.suggestedFeeRecipient
  env.prevRandao = attributes.prevRandao
  setHardforkFor(common, env)
  if (common.isActivatedEIP(4788) !== (attributes.parentBeaconBlockRoot !== undefined)) {
    throw new InvalidInputError(
      common.isActivatedEIP(4788) ? 'parentBeaconBlockRoot is required from Cancun on' : 'parentBeaconBlockRoot is not allowed before Cancun',
    )
  }
  env.parentBeaconBlockRoot = attributes.parentBeaconBlockRoot

  const stateManager = new FlatStateManager(host.history.at(head.number))
  stateManager.computeStateRoot = async (writes) => (await buildStateTrie(createOverlay(writes, stateManager.base), host.history)).root()
  const vm = await createVM({ common, stateManager, blockchain: createBlockchain(host.blockHashes) })
  const builder = await buildBlock(vm, {
    parentBlock: parent,
    headerData: { ...envHeaderData(env), extraData: request.extraData ?? new Uint8Array() },
    withdrawals: common.isActivatedEIP(4895) ? attributes.withdrawals : undefined,
    blockOpts: { putBlockIntoBlockchain: false, skipConsensusFormatValidation: true },
  })

  if (request.transactions === undefined) {
    for (const tx of host.waiting()) {
      try {
        await builder.addTransaction(tx, { skipHardForkValidation: true })
      } catch {
        // A miner leaves out what cannot run now (a nonce taken, a fee under the base fee, a full block).
      }
    }
  } else {
    for (const [index, raw] of request.transactions.entries()) {
      let tx: TypedTransaction
      try {
        tx = createTxFromRLP(raw, { common })
      } catch (error) {
        throw new InvalidInputError(`invalid transaction ${index}: ${firstLine(error)}`)
      }
      try {
        await builder.addTransaction(tx, { skipHardForkValidation: true })
      } catch (error) {
        throw refusal(firstLine(error), tx)
      }
    }
  }

  const blockValue = builder.minerValue
  const { block, requests } = await builder.build()
  return {
    block,
    blockValue,
    executionRequests: (requests ?? []).filter((request) => request.bytes.length > 1).map((request) => bytesToHex(request.bytes) as Hex),
  }
}

/**
 * The gas limit of a block whose parent had `parent`, moving towards `target` by less than parent / 1024 as EIP-1559
 * allows (the rule of geth's core.CalcGasLimit: a step of parent / 1024 - 1, and never under 5000).
 */
export function boundedGasLimit(parent: bigint, target: bigint): bigint {
  const step = parent / 1024n - 1n
  const wanted = target < 5000n ? 5000n : target
  if (parent < wanted) return parent + step > wanted ? wanted : parent + step
  if (parent > wanted) return parent - step < wanted ? wanted : parent - step
  return parent
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.replace(/ \((?:tx type|vm hf|block number)=.*$/s, '')
}

/** ethereumjs' refusal of a given transaction, as the reason geth tells apart (core/error.go), with the sender checksummed as geth prints it. */
function refusal(detail: string, tx: TypedTransaction): TransactionRejectedError | ExecutionFailedError {
  let sender: string
  try {
    sender = Address.checksum(tx.getSenderAddress().toString() as Hex)
  } catch {
    return new ExecutionFailedError(`invalid transaction: ${detail}`)
  }
  let match: RegExpMatchArray | null
  if ((match = detail.match(/account has nonce of: (\d+) tx has nonce of: (\d+)/)) !== null) {
    const [state, nonce] = [BigInt(match[1]!), BigInt(match[2]!)]
    return new TransactionRejectedError({ kind: nonce < state ? 'nonceTooLow' : 'nonceTooHigh', address: sender, txNonce: nonce, stateNonce: state })
  }
  if ((match = detail.match(/(?:upfront|max) cost is: (\d+) and the sender's account \S+ only has: (\d+)/)) !== null) {
    return new TransactionRejectedError({ kind: 'insufficientFunds', address: sender, have: BigInt(match[2]!), want: BigInt(match[1]!) })
  }
  if ((match = detail.match(/\((\d+)\) is less than the block's baseFeePerGas \((\d+)\)/)) !== null) {
    return new TransactionRejectedError({ kind: 'feeCapTooLow', address: sender, maxFeePerGas: BigInt(match[1]!), baseFee: BigInt(match[2]!) })
  }
  if ((match = detail.match(/gas limit (\d+) is lower than the minimum gas limit of (\d+)/)) !== null) {
    return new TransactionRejectedError({ kind: 'intrinsicGasTooLow', gas: BigInt(match[1]!), minimum: BigInt(match[2]!) })
  }
  if (/tx has a higher gas limit than the remaining gas in the block/.test(detail)) return new ExecutionFailedError('gas limit reached')
  return new ExecutionFailedError(detail)
}
