import { Block as EthereumjsBlockClass } from '@ethereumjs/block'
import { Capability } from '@ethereumjs/tx'
import { bytesToBigInt, bytesToHex } from '@ethereumjs/util'

import { asDeposit } from '../opstack/deposit.ts'

import type { Block as EthereumjsBlock, BlockHeader as EthereumjsHeader } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { DepositTransaction } from '../opstack/deposit.ts'
import type { Hex } from '../../hex.ts'
import type { Block, BlockHeader, BlockPosition, PendingBlock, Receipt, Transaction } from '../types.ts'
import type { PendingSnapshot, SealedBlock } from './types.ts'

/**
 * The plain data of the engine's blocks and transactions, made on first request and kept as long as the engine's
 * object lives: a block that nobody asks about costs nothing, and one asked about again costs a lookup.
 */
const transactions = new WeakMap<TypedTransaction, Transaction>()
const sealedBlocks = new WeakMap<SealedBlock, Block>()
const pendingBlocks = new WeakMap<PendingSnapshot, PendingBlock>()

const hex = (bytes: Uint8Array): Hex => bytesToHex(bytes) as Hex

export function transactionOf(tx: TypedTransaction, sender: Hex): Transaction {
  let view = transactions.get(tx)
  if (view === undefined) transactions.set(tx, (view = toTransaction(tx, sender)))
  return view
}

function toTransaction(tx: TypedTransaction, sender: Hex): Transaction {
  const deposit = asDeposit(tx)
  if (deposit !== undefined) return depositView(deposit)
  const fields = tx as unknown as Partial<{
    gasPrice: bigint
    maxFeePerGas: bigint
    maxPriorityFeePerGas: bigint
    maxFeePerBlobGas: bigint
    blobVersionedHashes: Hex[]
    accessList: [Uint8Array, Uint8Array[]][]
    authorizationList: Uint8Array[][]
  }>
  const replayProtected = tx.type !== 0 || tx.supports(Capability.EIP155ReplayProtection)
  return {
    hash: hex(tx.hash()),
    type: tx.type,
    chainId: replayProtected ? tx.common.chainId() : undefined,
    nonce: tx.nonce,
    from: sender,
    to: tx.to === undefined ? null : (tx.to.toString() as Hex),
    value: tx.value,
    input: hex(tx.data),
    gas: tx.gasLimit,
    gasPrice: fields.gasPrice,
    maxFeePerGas: fields.maxFeePerGas,
    maxPriorityFeePerGas: fields.maxPriorityFeePerGas,
    maxFeePerBlobGas: fields.maxFeePerBlobGas,
    blobVersionedHashes: fields.blobVersionedHashes,
    accessList: tx.supports(Capability.EIP2930AccessLists)
      ? fields.accessList!.map(([address, keys]) => ({ address: hex(address), storageKeys: keys.map(hex) }))
      : undefined,
    authorizationList: tx.supports(Capability.EIP7702EOACode)
      ? fields.authorizationList!.map(([chainId, address, nonce, yParity, r, s]) => ({
          chainId: bytesToBigInt(chainId!),
          address: hex(address!),
          nonce: bytesToBigInt(nonce!),
          yParity: Number(bytesToBigInt(yParity!)),
          r: bytesToBigInt(r!),
          s: bytesToBigInt(s!),
        }))
      : undefined,
    v: tx.v ?? 0n,
    r: tx.r ?? 0n,
    s: tx.s ?? 0n,
  }
}

/** A deposit as op-geth shows one: no fee fields but a gas price of 0, a zero signature, its nonce as it ran. */
function depositView(tx: DepositTransaction): Transaction {
  return {
    hash: hex(tx.hash()),
    type: tx.type,
    chainId: undefined,
    nonce: tx.nonce,
    from: tx.from.toString() as Hex,
    to: tx.to === undefined ? null : (tx.to.toString() as Hex),
    value: tx.value,
    input: hex(tx.data),
    gas: tx.gasLimit,
    gasPrice: 0n,
    maxFeePerGas: undefined,
    maxPriorityFeePerGas: undefined,
    maxFeePerBlobGas: undefined,
    blobVersionedHashes: undefined,
    accessList: undefined,
    authorizationList: undefined,
    v: 0n,
    r: 0n,
    s: 0n,
    deposit: { sourceHash: hex(tx.sourceHash), mint: tx.mint, isSystemTx: tx.isSystemTx },
  }
}

export function sealedBlockOf(sealed: SealedBlock): Block {
  let view = sealedBlocks.get(sealed)
  if (view === undefined) sealedBlocks.set(sealed, (view = toBlock(sealed)))
  return view
}

function toBlock(sealed: SealedBlock): Block {
  const { block } = sealed
  return blockView({
    hash: sealed.hash,
    block,
    size: () => BigInt(block.serialize().length),
    transactionHashes: () => block.transactions.map((tx) => hex(tx.hash())),
    transactions: () => block.transactions.map((tx, i) => transactionOf(tx, sealed.senders[i]!)),
    receipts: () => sealed.receipts,
  })
}

/** What a sealed block's view is made of: its header part whole, the rest made when first read. */
export type BlockViewParts = {
  hash: Hex
  /** The block, or the block without its transactions: its header, ommers and withdrawals are read. */
  block: EthereumjsBlock
  size: () => bigint
  transactionHashes: () => Hex[]
  transactions: () => Transaction[]
  receipts: () => readonly Receipt[]
}

/**
 * A sealed block's plain data. Its transactions, their hashes, its receipts and its size are made when first read:
 * a block asked for with hashes only never decodes its transactions (blocks/sealedBlocks.ts reads those alone).
 */
export function blockView(parts: BlockViewParts): Block {
  const { block } = parts
  let transactionHashes: Hex[] | undefined
  let transactions: Transaction[] | undefined
  let receipts: readonly Receipt[] | undefined
  let size: bigint | undefined
  return {
    kind: 'sealed',
    hash: parts.hash,
    header: headerOf(block.header),
    get size() {
      return (size ??= parts.size())
    },
    get transactionHashes() {
      return (transactionHashes ??= transactions?.map((tx) => tx.hash) ?? parts.transactionHashes())
    },
    get transactions() {
      return (transactions ??= parts.transactions())
    },
    get receipts() {
      return (receipts ??= parts.receipts())
    },
    withdrawals: block.withdrawals?.map((withdrawal) => ({
      index: withdrawal.index,
      validatorIndex: withdrawal.validatorIndex,
      address: withdrawal.address.toString() as Hex,
      amount: withdrawal.amount,
    })),
    uncles: block.uncleHeaders.map((uncle) => hex(uncle.hash())),
  }
}

function headerOf(header: EthereumjsHeader): BlockHeader {
  return {
    number: header.number,
    parentHash: hex(header.parentHash),
    sha3Uncles: hex(header.uncleHash),
    miner: header.coinbase.toString() as Hex,
    stateRoot: hex(header.stateRoot),
    transactionsRoot: hex(header.transactionsTrie),
    receiptsRoot: hex(header.receiptTrie),
    logsBloom: hex(header.logsBloom),
    difficulty: header.difficulty,
    gasLimit: header.gasLimit,
    gasUsed: header.gasUsed,
    timestamp: header.timestamp,
    extraData: hex(header.extraData),
    mixHash: hex(header.mixHash),
    nonce: hex(header.nonce),
    baseFeePerGas: header.baseFeePerGas,
    withdrawalsRoot: header.withdrawalsRoot === undefined ? undefined : hex(header.withdrawalsRoot),
    blobGasUsed: header.blobGasUsed,
    excessBlobGas: header.excessBlobGas,
    parentBeaconBlockRoot: header.parentBeaconBlockRoot === undefined ? undefined : hex(header.parentBeaconBlockRoot),
    requestsHash: header.requestsHash === undefined ? undefined : hex(header.requestsHash),
  }
}

export function pendingBlockOf(pending: PendingSnapshot): PendingBlock {
  let view = pendingBlocks.get(pending)
  if (view === undefined) {
    const { header } = pending
    const withdrawals = header.withdrawalsRoot === undefined ? undefined : []
    let size: bigint | undefined
    view = {
      kind: 'pending',
      env: pending.env,
      flashblockIndex: pending.flashblockIndex,
      hash: pending.hash,
      header: headerOf(header),
      // The length of the block it would seal with, encoded only when asked: most readers never look at it.
      get size() {
        size ??= BigInt(
          new EthereumjsBlockClass(header, pending.transactions, [], withdrawals === undefined ? undefined : [], {
            common: header.common,
          }).serialize().length,
        )
        return size
      },
      transactions: pending.transactions.map((tx, i) => transactionOf(tx, pending.senders[i]!)),
      receipts: pending.receipts,
      withdrawals,
      uncles: [],
    }
    pendingBlocks.set(pending, view)
  }
  return view
}

export function sealedBlockPosition(sealed: SealedBlock): BlockPosition {
  const { header } = sealed.block
  return { hash: sealed.hash, number: sealed.number, timestamp: header.timestamp, baseFeePerGas: header.baseFeePerGas }
}

export function pendingBlockPosition(pending: PendingSnapshot): BlockPosition {
  const { env } = pending
  return { hash: pending.hash, number: env.number, timestamp: env.timestamp, baseFeePerGas: env.baseFeePerGas }
}
