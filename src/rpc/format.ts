import { Capability } from '@ethereumjs/tx'
import { bytesToHex } from '@ethereumjs/util'

import type { TypedTransaction } from '@ethereumjs/tx'
import type { PendingBlock, SealedBlock } from '../chain/blocks/types.ts'
import type { FoundLog, TransactionLocation } from '../chain/chain.ts'
import type { Hex } from '../chain/state/types.ts'

/** JSON quantities: hex without leading zeros, "0x0" for zero (execution-apis' `uint`). */
export const toQuantity = (value: bigint | number): Hex => `0x${value.toString(16)}`

const hex = (bytes: Uint8Array): Hex => bytesToHex(bytes) as Hex

type Position = { blockHash: Hex | null; blockNumber: bigint; blockTimestamp: bigint; index: number }

/** A transaction as execution-apis' TransactionInfo has it: every field of its type, and its position. */
export function formatTransaction(tx: TypedTransaction, sender: Hex, position: Position | null): Record<string, unknown> {
  const json: Record<string, unknown> = {
    blockHash: position?.blockHash ?? null,
    blockNumber: position === null ? null : toQuantity(position.blockNumber),
    blockTimestamp: position === null ? null : toQuantity(position.blockTimestamp),
    from: sender,
    gas: toQuantity(tx.gasLimit),
    gasPrice: toQuantity(effectiveGasPrice(tx, position)),
    hash: hex(tx.hash()),
    input: hex(tx.data),
    nonce: toQuantity(tx.nonce),
    to: tx.to === undefined ? null : tx.to.toString(),
    transactionIndex: position === null ? null : toQuantity(position.index),
    value: toQuantity(tx.value),
    type: toQuantity(tx.type),
  }
  if (position === null) delete json.blockTimestamp
  if ('maxFeePerGas' in tx) {
    json.maxFeePerGas = toQuantity(tx.maxFeePerGas)
    json.maxPriorityFeePerGas = toQuantity(tx.maxPriorityFeePerGas)
  }
  if ('maxFeePerBlobGas' in tx) json.maxFeePerBlobGas = toQuantity((tx as { maxFeePerBlobGas: bigint }).maxFeePerBlobGas)
  if (tx.supports(Capability.EIP2930AccessLists)) {
    json.accessList = (tx as unknown as { accessList: [Uint8Array, Uint8Array[]][] }).accessList.map(([address, keys]) => ({
      address: hex(address),
      storageKeys: keys.map(hex),
    }))
  }
  if (tx.type !== 0 || tx.supports(Capability.EIP155ReplayProtection)) json.chainId = toQuantity(tx.common.chainId())
  if ('blobVersionedHashes' in tx) json.blobVersionedHashes = (tx as unknown as { blobVersionedHashes: Hex[] }).blobVersionedHashes
  if (tx.supports(Capability.EIP7702EOACode)) {
    json.authorizationList = (tx as unknown as { authorizationList: Uint8Array[][] }).authorizationList.map(
      ([chainId, address, nonce, yParity, r, s]) => ({
        chainId: toQuantity(bytesToBigIntOrZero(chainId!)),
        address: hex(address!),
        nonce: toQuantity(bytesToBigIntOrZero(nonce!)),
        yParity: toQuantity(bytesToBigIntOrZero(yParity!)),
        r: toQuantity(bytesToBigIntOrZero(r!)),
        s: toQuantity(bytesToBigIntOrZero(s!)),
      }),
    )
  }
  json.v = toQuantity(tx.v ?? 0n)
  json.r = toQuantity(tx.r ?? 0n)
  json.s = toQuantity(tx.s ?? 0n)
  if (tx.type !== 0) json.yParity = toQuantity(tx.v ?? 0n)
  return json
}

function bytesToBigIntOrZero(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(bytesToHex(bytes))
}

function effectiveGasPrice(tx: TypedTransaction, position: Position | null, baseFee?: bigint): bigint {
  if (!('maxFeePerGas' in tx)) return (tx as { gasPrice: bigint }).gasPrice
  // geth reports the fee cap for a transaction not yet in a block, and the price paid once it is.
  if (position === null || baseFee === undefined) return tx.maxFeePerGas
  const paid = baseFee + tx.maxPriorityFeePerGas
  return paid < tx.maxFeePerGas ? paid : tx.maxFeePerGas
}

export function formatLocatedTransaction(location: TransactionLocation): Record<string, unknown> {
  if (location.kind === 'pool') return formatTransaction(location.tx, location.sender, null)
  const position = locationPosition(location)
  const json = formatTransaction(location.tx, location.sender, position)
  json.gasPrice = toQuantity(effectiveGasPrice(location.tx, position, baseFeeOf(location)))
  return json
}

function baseFeeOf(location: Exclude<TransactionLocation, { kind: 'pool' }>): bigint | undefined {
  return location.kind === 'sealed' ? location.block.block.header.baseFeePerGas : location.block.env.baseFeePerGas
}

function locationPosition(location: Exclude<TransactionLocation, { kind: 'pool' }>): Position {
  return location.kind === 'sealed'
    ? {
        blockHash: location.block.hash,
        blockNumber: location.block.number,
        blockTimestamp: location.block.block.header.timestamp,
        index: location.index,
      }
    : { blockHash: null, blockNumber: location.block.env.number, blockTimestamp: location.block.env.timestamp, index: location.index }
}

export function formatLog(entry: FoundLog): Record<string, unknown> {
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

export function formatReceipt(location: Exclude<TransactionLocation, { kind: 'pool' }>): Record<string, unknown> {
  const { tx, receipt, sender } = location
  const position = locationPosition(location)
  const json: Record<string, unknown> = {
    blockHash: position.blockHash,
    blockNumber: toQuantity(position.blockNumber),
    contractAddress: receipt.contractAddress,
    cumulativeGasUsed: toQuantity(receipt.cumulativeGasUsed),
    effectiveGasPrice: toQuantity(receipt.effectiveGasPrice),
    from: sender,
    gasUsed: toQuantity(receipt.gasUsed),
    logs: receipt.logs.map((entry, i) =>
      formatLog({
        ...entry,
        blockNumber: position.blockNumber,
        blockHash: position.blockHash,
        blockTimestamp: position.blockTimestamp,
        transactionHash: hex(tx.hash()),
        transactionIndex: location.index,
        logIndex: location.logIndex + i,
      }),
    ),
    logsBloom: receipt.logsBloom,
    to: tx.to === undefined ? null : tx.to.toString(),
    transactionHash: hex(tx.hash()),
    transactionIndex: toQuantity(location.index),
    type: toQuantity(tx.type),
  }
  if (receipt.root !== undefined) json.root = receipt.root
  else json.status = toQuantity(receipt.status ?? 0)
  if (receipt.blobGasUsed !== undefined) {
    json.blobGasUsed = toQuantity(receipt.blobGasUsed)
    json.blobGasPrice = toQuantity(receipt.blobGasPrice ?? 0n)
  }
  return json
}

/** A transaction's place in a block, for full-transaction block answers (which carry no logs). */
function inBlock(block: SealedBlock | PendingBlock, tx: TypedTransaction, index: number) {
  return { tx, sender: block.senders[index]!, index, receipt: block.receipts[index]!, logIndex: 0 }
}

/** A sealed block as execution-apis' Block: header fields of its fork, and hashes or full transactions. */
export function formatBlock(sealed: SealedBlock, fullTransactions: boolean): Record<string, unknown> {
  const { block } = sealed
  const header = block.header
  const json: Record<string, unknown> = {
    baseFeePerGas: header.baseFeePerGas === undefined ? undefined : toQuantity(header.baseFeePerGas),
    blobGasUsed: header.blobGasUsed === undefined ? undefined : toQuantity(header.blobGasUsed),
    difficulty: toQuantity(header.difficulty),
    excessBlobGas: header.excessBlobGas === undefined ? undefined : toQuantity(header.excessBlobGas),
    extraData: hex(header.extraData),
    gasLimit: toQuantity(header.gasLimit),
    gasUsed: toQuantity(header.gasUsed),
    hash: sealed.hash,
    logsBloom: hex(header.logsBloom),
    miner: header.coinbase.toString(),
    mixHash: hex(header.mixHash),
    nonce: hex(header.nonce),
    number: toQuantity(header.number),
    parentBeaconBlockRoot: header.parentBeaconBlockRoot === undefined ? undefined : hex(header.parentBeaconBlockRoot),
    parentHash: hex(header.parentHash),
    receiptsRoot: hex(header.receiptTrie),
    requestsHash: header.requestsHash === undefined ? undefined : hex(header.requestsHash),
    sha3Uncles: hex(header.uncleHash),
    size: toQuantity(block.serialize().length),
    stateRoot: hex(header.stateRoot),
    timestamp: toQuantity(header.timestamp),
    transactions: fullTransactions
      ? block.transactions.map((tx, index) => formatLocatedTransaction({ kind: 'sealed', ...inBlock(sealed, tx, index), block: sealed }))
      : block.transactions.map((tx) => hex(tx.hash())),
    transactionsRoot: hex(header.transactionsTrie),
    uncles: block.uncleHeaders.map((uncle) => hex(uncle.hash())),
    withdrawals: block.withdrawals?.map((withdrawal) => ({
      index: toQuantity(withdrawal.index),
      validatorIndex: toQuantity(withdrawal.validatorIndex),
      address: withdrawal.address.toString(),
      amount: toQuantity(withdrawal.amount),
    })),
    withdrawalsRoot: header.withdrawalsRoot === undefined ? undefined : hex(header.withdrawalsRoot),
  }
  for (const key of Object.keys(json)) if (json[key] === undefined) delete json[key]
  return json
}

/**
 * The pending block: the N+1 environment and the pre-confirmed transactions. Like geth's pending block, what is
 * not known before the seal (hash, roots, nonce, miner-chosen size) is null.
 */
export function formatPendingBlock(pending: PendingBlock, fullTransactions: boolean): Record<string, unknown> {
  const { env } = pending
  const gasUsed = pending.receipts.at(-1)?.cumulativeGasUsed ?? 0n
  return {
    ...(env.baseFeePerGas === undefined ? {} : { baseFeePerGas: toQuantity(env.baseFeePerGas) }),
    difficulty: '0x0',
    extraData: '0x',
    gasLimit: toQuantity(env.gasLimit),
    gasUsed: toQuantity(gasUsed),
    hash: null,
    logsBloom: null,
    miner: env.coinbase,
    mixHash: env.prevRandao,
    nonce: null,
    number: toQuantity(env.number),
    parentHash: env.parentHash,
    ...(env.parentBeaconBlockRoot === undefined ? {} : { parentBeaconBlockRoot: env.parentBeaconBlockRoot }),
    ...(env.excessBlobGas === undefined ? {} : { excessBlobGas: toQuantity(env.excessBlobGas) }),
    sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
    stateRoot: null,
    timestamp: toQuantity(env.timestamp),
    transactions: fullTransactions
      ? pending.transactions.map((tx, index) => formatLocatedTransaction({ kind: 'preconfirmed', ...inBlock(pending, tx, index), block: pending }))
      : pending.transactions.map((tx) => hex(tx.hash())),
    uncles: [],
  }
}
