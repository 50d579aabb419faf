/**
 * A flashblock in the wire format of Base's flashblocks stream (rollup-boost's FlashblocksPayloadV1): `payload_id`,
 * `index`, `base` at index 0 only, the cumulative `diff`, and `metadata` with the receipts and balances in the
 * shape indexers read. Field names are snake_case; quantities are hex except `index` and
 * `metadata.block_number`, which are JSON numbers, as Base sends them.
 */
import { createHash } from 'node:crypto'

import { toQuantity } from '../hex.ts'

import type { Flashblock } from '../chain/types.ts'
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
    new_account_balances: Record<Hex, Hex>
    receipts: Record<Hex, Record<string, { status: Hex; cumulativeGasUsed: Hex; logs: { address: Hex; topics: Hex[]; data: Hex }[] }>>
  }
}

/** The receipt envelope's variant names by transaction type, as Base's metadata keys them. */
const receiptVariants: Record<number, string> = { 0: 'Legacy', 1: 'Eip2930', 2: 'Eip1559', 3: 'Eip4844', 4: 'Eip7702' }

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
      new_account_balances: Object.fromEntries(flashblock.balances.map(([address, balance]) => [address, toQuantity(balance)])),
      receipts: Object.fromEntries(
        flashblock.transactions.map(({ hash, type, receipt }) => [
          hash,
          {
            [receiptVariants[type] ?? 'Legacy']: {
              status: toQuantity(receipt.status ?? 0),
              cumulativeGasUsed: toQuantity(receipt.cumulativeGasUsed),
              logs: receipt.logs.map(({ address, topics, data }) => ({ address, topics, data })),
            },
          },
        ]),
      ),
    },
  }
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
