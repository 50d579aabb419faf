/**
 * The chain's plain data as execution-apis' JSON: quantities as hex without leading zeros, absent fields left out.
 */
import { bytesToHex, toQuantity } from '../hex.ts'

import type { Block, BlockPosition, FeeHistory, FoundLog, L1Fee, PendingBlock, Transaction, TransactionLocation } from '../chain/types.ts'
import type { Hex } from '../hex.ts'
import type { BatchStatus, BatchStatusCode } from '../wallet/batches.ts'

export type TransactionJSON = Record<string, unknown>
export type ReceiptJSON = Record<string, unknown>
export type BlockJSON = Record<string, unknown>
export type LogJSON = {
  address: Hex
  topics: Hex[]
  data: Hex
  blockNumber: Hex
  blockHash: Hex | null
  blockTimestamp: Hex
  transactionHash: Hex
  transactionIndex: Hex
  logIndex: Hex
  removed: false
}

/** A storage slot's value as a 32-byte word; the state keeps it without leading zeros. */
export function formatStorageWord(value: Uint8Array): Hex {
  const word = new Uint8Array(32)
  word.set(value, 32 - value.length)
  return bytesToHex(word)
}

/** What a transaction paid per gas in its block; geth reports the fee cap for one not yet in a block. */
function effectiveGasPrice(tx: Transaction, baseFee: bigint | undefined): bigint {
  if (tx.maxFeePerGas === undefined) return tx.gasPrice!
  if (baseFee === undefined) return tx.maxFeePerGas
  const paid = baseFee + tx.maxPriorityFeePerGas!
  return paid < tx.maxFeePerGas ? paid : tx.maxFeePerGas
}

/** A transaction as execution-apis' TransactionInfo has it: every field of its type, and its position if any. */
export function formatTransaction(tx: Transaction, at?: { block: BlockPosition; index: number }): TransactionJSON {
  const json: TransactionJSON = {
    blockHash: at?.block.hash ?? null,
    blockNumber: at === undefined ? null : toQuantity(at.block.number),
    ...(at === undefined ? {} : { blockTimestamp: toQuantity(at.block.timestamp) }),
    from: tx.from,
    gas: toQuantity(tx.gas),
    gasPrice: toQuantity(effectiveGasPrice(tx, at?.block.baseFeePerGas)),
    hash: tx.hash,
    input: tx.input,
    nonce: toQuantity(tx.nonce),
    to: tx.to,
    transactionIndex: at === undefined ? null : toQuantity(at.index),
    value: toQuantity(tx.value),
    type: toQuantity(tx.type),
  }
  if (tx.maxFeePerGas !== undefined) {
    json.maxFeePerGas = toQuantity(tx.maxFeePerGas)
    json.maxPriorityFeePerGas = toQuantity(tx.maxPriorityFeePerGas!)
  }
  if (tx.maxFeePerBlobGas !== undefined) json.maxFeePerBlobGas = toQuantity(tx.maxFeePerBlobGas)
  if (tx.accessList !== undefined) json.accessList = tx.accessList
  if (tx.chainId !== undefined) json.chainId = toQuantity(tx.chainId)
  if (tx.blobVersionedHashes !== undefined) json.blobVersionedHashes = tx.blobVersionedHashes
  if (tx.authorizationList !== undefined) {
    json.authorizationList = tx.authorizationList.map((authorization) => ({
      chainId: toQuantity(authorization.chainId),
      address: authorization.address,
      nonce: toQuantity(authorization.nonce),
      yParity: toQuantity(authorization.yParity),
      r: toQuantity(authorization.r),
      s: toQuantity(authorization.s),
    }))
  }
  json.v = toQuantity(tx.v)
  json.r = toQuantity(tx.r)
  json.s = toQuantity(tx.s)
  if (tx.type !== 0) json.yParity = toQuantity(tx.v)
  if (tx.deposit !== undefined) {
    // op-geth's fields of a deposit; isSystemTx only when true, as op-geth leaves it out otherwise.
    json.sourceHash = tx.deposit.sourceHash
    json.mint = toQuantity(tx.deposit.mint)
    if (tx.deposit.isSystemTx) json.isSystemTx = true
  }
  return json
}

export function formatLocatedTransaction(location: TransactionLocation): TransactionJSON {
  return location.kind === 'pool' ? formatTransaction(location.transaction) : formatTransaction(location.transaction, location)
}

export function formatLog(entry: FoundLog): LogJSON {
  return {
    address: entry.address,
    topics: entry.topics,
    data: entry.data,
    blockNumber: toQuantity(entry.blockNumber),
    blockHash: entry.blockHash,
    blockTimestamp: toQuantity(entry.blockTimestamp),
    transactionHash: entry.transactionHash,
    transactionIndex: toQuantity(entry.transactionIndex),
    logIndex: toQuantity(entry.logIndex),
    removed: false,
  }
}

export function formatReceipt(location: Exclude<TransactionLocation, { kind: 'pool' }>): ReceiptJSON {
  const { transaction: tx, receipt, block, index } = location
  const json: ReceiptJSON = {
    blockHash: block.hash,
    blockNumber: toQuantity(block.number),
    // Not in geth's receipt (its logs carry it, execution-apis #639); anvil's has it, so no block lookup is needed.
    blockTimestamp: toQuantity(block.timestamp),
    contractAddress: receipt.contractAddress,
    cumulativeGasUsed: toQuantity(receipt.cumulativeGasUsed),
    effectiveGasPrice: toQuantity(receipt.effectiveGasPrice),
    from: tx.from,
    gasUsed: toQuantity(receipt.gasUsed),
    logs: receipt.logs.map((entry, i) =>
      formatLog({
        ...entry,
        blockNumber: block.number,
        blockHash: block.hash,
        blockTimestamp: block.timestamp,
        transactionHash: tx.hash,
        transactionIndex: index,
        logIndex: location.logIndex + i,
      }),
    ),
    logsBloom: receipt.logsBloom,
    to: tx.to,
    transactionHash: tx.hash,
    transactionIndex: toQuantity(index),
    type: toQuantity(tx.type),
  }
  if (receipt.root !== undefined) json.root = receipt.root
  else json.status = toQuantity(receipt.status ?? 0)
  // As geth: only a blob transaction's receipt has the blob fields (anvil gives every receipt after Cancun the price).
  if (receipt.blobGasUsed !== undefined) {
    json.blobGasUsed = toQuantity(receipt.blobGasUsed)
    json.blobGasPrice = toQuantity(receipt.blobGasPrice ?? 0n)
  }
  if (receipt.depositNonce !== undefined) {
    json.depositNonce = toQuantity(receipt.depositNonce)
    json.depositReceiptVersion = toQuantity(BigInt(receipt.depositReceiptVersion ?? 1))
  }
  if (receipt.l1Fee !== undefined) Object.assign(json, l1FeeFields(receipt.l1Fee))
  return json
}

/**
 * An OP Stack receipt's L1 fields, as op-geth names them: the fee, Fjord's l1GasUsed, the L1 base fee as
 * l1GasPrice, the blob base fee and both scalars; the operator fee's parameters only when one is set; Jovian's DA
 * footprint scalar.
 */
function l1FeeFields(l1: L1Fee): ReceiptJSON {
  return {
    l1GasPrice: toQuantity(l1.l1BaseFee),
    l1GasUsed: toQuantity(l1.gasUsed),
    l1Fee: toQuantity(l1.fee),
    l1BaseFeeScalar: toQuantity(l1.baseFeeScalar),
    l1BlobBaseFee: toQuantity(l1.l1BlobBaseFee),
    l1BlobBaseFeeScalar: toQuantity(l1.blobBaseFeeScalar),
    ...(l1.operatorFeeScalar === 0n && l1.operatorFeeConstant === 0n
      ? {}
      : { operatorFeeScalar: toQuantity(l1.operatorFeeScalar), operatorFeeConstant: toQuantity(l1.operatorFeeConstant) }),
    daFootprintGasScalar: toQuantity(l1.daFootprintGasScalar),
  }
}

/** Where a sealed or pending block puts its transactions; the pending block's hash is its flashblock's. */
function positionOf(block: Block | PendingBlock): BlockPosition {
  const { header } = block
  return { hash: block.hash, number: header.number, timestamp: header.timestamp, baseFeePerGas: header.baseFeePerGas }
}

/** Transaction `index` of a sealed or pending block, with its position; null past the block's last transaction. */
export function formatTransactionAt(block: Block | PendingBlock, index: bigint): TransactionJSON | null {
  if (index >= BigInt(block.transactions.length)) return null
  return formatTransaction(block.transactions[Number(index)]!, { block: positionOf(block), index: Number(index) })
}

/** Every receipt of a sealed or pending block, in order (eth_getBlockReceipts). */
export function formatBlockReceipts(block: Block | PendingBlock): ReceiptJSON[] {
  const position = positionOf(block)
  const kind = block.kind === 'pending' ? 'preconfirmed' : 'sealed'
  let logIndex = 0
  return block.receipts.map((receipt, index) => {
    const json = formatReceipt({ kind, transaction: block.transactions[index]!, block: position, index, receipt, logIndex })
    logIndex += receipt.logs.length
    return json
  })
}

/** Optional quantities of a header: present only in the forks that have them. */
const quantityIfSet = (value: bigint | undefined) => (value === undefined ? undefined : toQuantity(value))

/**
 * A block as execution-apis' Block: header fields of its fork, and hashes or full transactions. The pending block
 * has every field the sealed one will have, as of its newest flashblock (docs/chain.md#the-pending-block).
 */
export function formatBlock(block: Block | PendingBlock, fullTransactions: boolean): BlockJSON {
  const { header } = block
  const position = positionOf(block)
  const json: BlockJSON = {
    baseFeePerGas: quantityIfSet(header.baseFeePerGas),
    blobGasUsed: quantityIfSet(header.blobGasUsed),
    difficulty: toQuantity(header.difficulty),
    excessBlobGas: quantityIfSet(header.excessBlobGas),
    extraData: header.extraData,
    gasLimit: toQuantity(header.gasLimit),
    gasUsed: toQuantity(header.gasUsed),
    hash: block.hash,
    logsBloom: header.logsBloom,
    miner: header.miner,
    mixHash: header.mixHash,
    nonce: header.nonce,
    number: toQuantity(header.number),
    parentBeaconBlockRoot: header.parentBeaconBlockRoot,
    parentHash: header.parentHash,
    receiptsRoot: header.receiptsRoot,
    requestsHash: header.requestsHash,
    sha3Uncles: header.sha3Uncles,
    size: toQuantity(block.size),
    stateRoot: header.stateRoot,
    timestamp: toQuantity(header.timestamp),
    transactions: fullTransactions
      ? block.transactions.map((tx, index) => formatTransaction(tx, { block: position, index }))
      : block.kind === 'sealed'
        ? block.transactionHashes
        : block.transactions.map((tx) => tx.hash),
    transactionsRoot: header.transactionsRoot,
    uncles: block.uncles,
    withdrawals: block.withdrawals?.map((withdrawal) => ({
      index: toQuantity(withdrawal.index),
      validatorIndex: toQuantity(withdrawal.validatorIndex),
      address: withdrawal.address,
      amount: toQuantity(withdrawal.amount),
    })),
    withdrawalsRoot: header.withdrawalsRoot,
  }
  for (const key of Object.keys(json)) if (json[key] === undefined) delete json[key]
  return json
}

export type FeeHistoryJSON = {
  oldestBlock: Hex
  baseFeePerGas: Hex[]
  gasUsedRatio: number[]
  baseFeePerBlobGas?: Hex[]
  blobGasUsedRatio?: number[]
  reward?: Hex[][]
}

export function formatFeeHistory(history: FeeHistory): FeeHistoryJSON {
  if (history.gasUsedRatio.length === 0) return { oldestBlock: '0x0', baseFeePerGas: [], gasUsedRatio: [] }
  return {
    oldestBlock: toQuantity(history.oldestBlock),
    baseFeePerGas: history.baseFeePerGas.map(toQuantity),
    gasUsedRatio: history.gasUsedRatio,
    baseFeePerBlobGas: history.baseFeePerBlobGas.map(toQuantity),
    blobGasUsedRatio: history.blobGasUsedRatio,
    ...(history.reward === undefined ? {} : { reward: history.reward.map((tips) => tips.map(toQuantity)) }),
  }
}

/** wallet_getCallsStatus' answer (EIP-5792): the batch's status code and a receipt for each transaction sealed so far. */
export type CallsStatus = {
  version: '2.0.0'
  id: string
  chainId: Hex
  status: BatchStatusCode
  atomic: boolean
  receipts: {
    logs: { address: Hex; data: Hex; topics: Hex[] }[]
    status: '0x1' | '0x0'
    blockHash: Hex
    blockNumber: Hex
    blockTimestamp: Hex
    gasUsed: Hex
    transactionHash: Hex
    /** On an OP Stack chain, what the transaction paid for L1 data besides its gas, as its receipt says. */
    l1Fee?: Hex
  }[]
}

export function formatCallsStatus(batch: BatchStatus): CallsStatus {
  return {
    version: '2.0.0',
    id: batch.id,
    chainId: batch.chainId,
    status: batch.status,
    atomic: batch.atomic,
    receipts: batch.sealed.map((location) => ({
      logs: location.receipt.logs.map((entry) => ({ address: entry.address, data: entry.data, topics: entry.topics })),
      status: location.receipt.status === 1 ? '0x1' : '0x0',
      blockHash: location.block.hash,
      blockNumber: toQuantity(location.block.number),
      blockTimestamp: toQuantity(location.block.timestamp),
      gasUsed: toQuantity(location.receipt.gasUsed),
      transactionHash: location.transaction.hash,
      ...(location.receipt.l1Fee === undefined ? {} : { l1Fee: toQuantity(location.receipt.l1Fee.fee) }),
    })),
  }
}
