/**
 * A flashblock in the wire format of Base's flashblocks stream (rollup-boost's FlashblocksPayloadV1): `payload_id`,
 * `index`, `base` at index 0 only, the cumulative `diff`, and `metadata` with the receipts and balances in the
 * shape indexers read. Field names are snake_case; quantities are hex except `index` and
 * `metadata.block_number`, which are JSON numbers, as Base sends them.
 */
import { createHash } from 'node:crypto'

import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, bytesToHex, hexToBytes, intToUnpaddedBytes, setLengthLeft } from '@ethereumjs/util'

import { keccak256 } from '../chain/crypto/keccak.ts'
import { word } from '../chain/state/dump.ts'
import { toQuantity } from '../hex.ts'

import type { FlashblockAccessList } from '../chain/state/accesses.ts'
import type { StateDiff } from '../chain/state/types.ts'
import type { ChainEdit, Flashblock } from '../chain/types.ts'
import type { Hex } from '../hex.ts'

export type FlashblockJSON = {
  payload_id: Hex
  index: number
  base?: {
    parent_beacon_block_root: Hex
    parent_hash: Hex
    fee_recipient: Hex
    prev_randao: Hex
    block_number: Hex
    gas_limit: Hex
    timestamp: Hex
    extra_data: Hex
    base_fee_per_gas: Hex
  }
  diff: {
    state_root: Hex
    receipts_root: Hex
    logs_bloom: Hex
    gas_used: Hex
    block_hash: Hex
    transactions: Hex[]
    withdrawals: []
    withdrawals_root: Hex
    blob_gas_used?: Hex
  }
  metadata: {
    block_number: number
    /** Absent in a block begun while the stream had no reader. */
    flashblock_access_list?: FlashblockAccessListJSON
    /** flashchain's own: the test-control changes since the flashblock before, when there were any. */
    flashchain_edits?: ChainEditJSON[]
    /** flashchain's own: the frame's place in the stream since the node started, from 0 (Flashblock.sequence). */
    flashchain_sequence: number
    /** flashchain's own: true on the flashblock that ends its block, whose roots and hash are the sealed block's. */
    flashchain_sealed?: true
    /**
     * flashchain's own: who sent each of its transactions sent as an impersonated account (anvil_impersonateAccount),
     * by hash, since their signatures recover no one.
     */
    flashchain_impersonated?: Record<Hex, Hex>
    new_account_balances: Record<Hex, Hex>
    receipts: Record<Hex, Record<string, ReceiptEnvelopeJSON>>
  }
}

/** A receipt in Base's metadata: op-alloy's receipt envelope, a deposit's with its nonce and receipt version. */
export type ReceiptEnvelopeJSON = {
  status: Hex
  cumulativeGasUsed: Hex
  logs: { address: Hex; topics: Hex[]; data: Hex }[]
  depositNonce?: Hex
  depositReceiptVersion?: Hex
}

/** Base's flashblock access list: EIP-7928's account changes, in alloy's JSON names, with the keccak of their RLP. */
export type FlashblockAccessListJSON = {
  min_tx_index: number
  max_tx_index: number
  account_changes: {
    address: Hex
    storageChanges: { slot: Hex; changes: { blockAccessIndex: Hex; newValue: Hex }[] }[]
    storageReads: Hex[]
    balanceChanges: { blockAccessIndex: Hex; postBalance: Hex }[]
    nonceChanges: { blockAccessIndex: Hex; newNonce: Hex }[]
    codeChanges: { blockAccessIndex: Hex; newCode: Hex }[]
  }[]
  fal_hash: Hex
}

/** State writes as a replica applies them: accounts (or their deletion), storage by account, code by hash. */
export type StateWritesJSON = {
  accounts: ({ address: Hex; balance: Hex; nonce: Hex; code_hash: Hex } | { address: Hex; deleted: true })[]
  /** `cleared`: the account's storage was wiped before these slots were written. Values are 32-byte words. */
  storage: { address: Hex; cleared: boolean; slots: Record<Hex, Hex> }[]
  code: Record<Hex, Hex>
}

export type ChainEditJSON =
  | { kind: 'edit'; block_number: number; latest: StateWritesJSON; pending: StateWritesJSON | null }
  | { kind: 'rewind'; block_number: number; writes: StateWritesJSON }
  | { kind: 'reset'; block_number: number; block_hash: Hex }

/** The receipt envelope's variant names by transaction type, as Base's metadata keys them. */
const receiptVariants: Record<number, string> = { 0: 'Legacy', 1: 'Eip2930', 2: 'Eip1559', 3: 'Eip4844', 4: 'Eip7702', 126: 'Deposit' }

const ZERO_HASH = `0x${'00'.repeat(32)}` as Hex

/**
 * The engine API's payload id of the block (8 bytes), the same for each of its flashblocks: there is no consensus
 * client to choose one, so it is derived from what fixes the block, its parent and timestamp.
 */
export function payloadId(flashblock: Flashblock): Hex {
  const { env } = flashblock
  const digest = createHash('sha256').update(`${env.parentHash}:${env.number}:${env.timestamp}`).digest('hex')
  return `0x${digest.slice(0, 16)}` as Hex
}

export function formatFlashblock(flashblock: Flashblock): FlashblockJSON {
  const { env } = flashblock
  const json: FlashblockJSON = {
    payload_id: payloadId(flashblock),
    index: flashblock.index,
    diff: {
      state_root: flashblock.stateRoot,
      receipts_root: flashblock.receiptsRoot,
      logs_bloom: flashblock.logsBloom,
      gas_used: toQuantity(flashblock.gasUsed),
      block_hash: flashblock.blockHash,
      transactions: flashblock.transactions.map((tx) => tx.raw),
      withdrawals: [],
      withdrawals_root: flashblock.withdrawalsRoot ?? ZERO_HASH,
    },
    metadata: {
      block_number: Number(flashblock.number),
      flashchain_sequence: flashblock.sequence,
      new_account_balances: Object.fromEntries(flashblock.balances.map(([address, balance]) => [address, toQuantity(balance)])),
      receipts: Object.fromEntries(
        flashblock.transactions.map(({ hash, type, receipt }) => [
          hash,
          {
            [receiptVariants[type] ?? 'Legacy']: {
              status: toQuantity(receipt.status ?? 0),
              cumulativeGasUsed: toQuantity(receipt.cumulativeGasUsed),
              logs: receipt.logs.map(({ address, topics, data }) => ({ address, topics, data })),
              ...(receipt.depositNonce === undefined
                ? {}
                : { depositNonce: toQuantity(receipt.depositNonce), depositReceiptVersion: toQuantity(BigInt(receipt.depositReceiptVersion ?? 1)) }),
            },
          },
        ]),
      ),
    },
  }
  if (flashblock.accessList !== undefined) json.metadata.flashblock_access_list = formatAccessList(flashblock.accessList)
  if (flashblock.edits.length > 0) json.metadata.flashchain_edits = flashblock.edits.map(formatEdit)
  if (flashblock.sealed) json.metadata.flashchain_sealed = true
  const impersonated = flashblock.transactions.filter((tx) => tx.impersonated !== undefined)
  if (impersonated.length > 0) json.metadata.flashchain_impersonated = Object.fromEntries(impersonated.map((tx) => [tx.hash, tx.impersonated!]))
  if (flashblock.blobGasUsed !== undefined && flashblock.blobGasUsed > 0n) json.diff.blob_gas_used = toQuantity(flashblock.blobGasUsed)
  if (flashblock.index === 0) {
    json.base = {
      parent_beacon_block_root: env.parentBeaconBlockRoot ?? ZERO_HASH,
      parent_hash: env.parentHash,
      fee_recipient: env.coinbase,
      prev_randao: env.prevRandao,
      block_number: toQuantity(env.number),
      gas_limit: toQuantity(env.gasLimit),
      timestamp: toQuantity(env.timestamp),
      extra_data: flashblock.extraData,
      base_fee_per_gas: toQuantity(env.baseFeePerGas ?? 0n),
    }
  }
  return json
}

const index = (i: number) => toQuantity(BigInt(i))

/**
 * The access list as Base's stream carries it. `fal_hash` is the keccak of the RLP of the account changes, each
 * `[address, [[slot, [[index, value]]]], [slot], [[index, balance]], [[index, nonce]], [[index, code]]]`, with slots
 * and values as 32 bytes and the rest as integers (base's docs/specs/access-lists.md).
 */
export function formatAccessList(list: FlashblockAccessList): FlashblockAccessListJSON {
  const rlp = list.accounts.map((account) => [
    hexToBytes(account.address),
    account.storageChanges.map(([slot, changes]) => [
      hexToBytes(slot),
      changes.map(([i, value]) => [intToUnpaddedBytes(i), setLengthLeft(value, 32)]),
    ]),
    account.storageReads.map((slot) => hexToBytes(slot)),
    account.balanceChanges.map(([i, balance]) => [intToUnpaddedBytes(i), bigIntToUnpaddedBytes(balance)]),
    account.nonceChanges.map(([i, nonce]) => [intToUnpaddedBytes(i), bigIntToUnpaddedBytes(nonce)]),
    account.codeChanges.map(([i, code]) => [intToUnpaddedBytes(i), code]),
  ])
  return {
    min_tx_index: list.minTxIndex,
    max_tx_index: list.maxTxIndex,
    account_changes: list.accounts.map((account) => ({
      address: account.address,
      storageChanges: account.storageChanges.map(([slot, changes]) => ({
        slot,
        changes: changes.map(([i, value]) => ({ blockAccessIndex: index(i), newValue: word(value) })),
      })),
      storageReads: account.storageReads,
      balanceChanges: account.balanceChanges.map(([i, balance]) => ({ blockAccessIndex: index(i), postBalance: toQuantity(balance) })),
      nonceChanges: account.nonceChanges.map(([i, nonce]) => ({ blockAccessIndex: index(i), newNonce: toQuantity(nonce) })),
      codeChanges: account.codeChanges.map(([i, code]) => ({ blockAccessIndex: index(i), newCode: bytesToHex(code) as Hex })),
    })),
    fal_hash: bytesToHex(keccak256(RLP.encode(rlp))) as Hex,
  }
}

export function formatEdit(edit: ChainEdit): ChainEditJSON {
  const block_number = Number(edit.number)
  switch (edit.kind) {
    case 'edit':
      return {
        kind: 'edit',
        block_number,
        latest: formatWrites(edit.latest),
        pending: edit.pending === undefined ? null : formatWrites(edit.pending),
      }
    case 'rewind':
      return { kind: 'rewind', block_number, writes: formatWrites(edit.writes) }
    case 'reset':
      return { kind: 'reset', block_number, block_hash: edit.hash }
  }
}

function formatWrites(diff: StateDiff): StateWritesJSON {
  return {
    accounts: [...diff.accounts].map(([address, account]) =>
      account === null
        ? { address, deleted: true as const }
        : { address, balance: toQuantity(account.balance), nonce: toQuantity(account.nonce), code_hash: bytesToHex(account.codeHash) as Hex },
    ),
    storage: [...diff.storage].map(([address, { cleared, slots }]) => ({
      address,
      cleared,
      slots: Object.fromEntries([...slots].map(([slot, value]) => [slot, word(value)])),
    })),
    code: Object.fromEntries([...diff.code].map(([hash, code]) => [hash, bytesToHex(code) as Hex])),
  }
}
