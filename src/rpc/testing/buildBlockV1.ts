import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'
import { address, data, hash, uint64 } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

const withdrawal = z.object({ index: uint64, validatorIndex: uint64, address, amount: uint64 })

/** engine_forkchoiceUpdatedV3's PayloadAttributesV3; withdrawals may be left out, as none. */
const payloadAttributes = z.object({
  timestamp: uint64,
  prevRandao: hash,
  suggestedFeeRecipient: address,
  withdrawals: z.array(withdrawal).optional(),
  parentBeaconBlockRoot: hash.optional(),
})

const params = z.tuple([
  hash,
  payloadAttributes,
  // null: the node's own transactions; [] an empty block.
  z.array(data).nullable(),
  data
    .refine((extra) => extra.length <= 66, 'extraData is at most 32 bytes')
    .nullable()
    .optional(),
])

/** engine_getPayloadV4's response (ExecutionPayloadV3 and the rest), as testing_buildBlockV1 answers it. */
export type BuiltPayloadJSON = {
  executionPayload: Record<string, unknown>
  blockValue: Hex
  blobsBundle: { commitments: Hex[]; proofs: Hex[]; blobs: Hex[] }
  executionRequests: Hex[]
  shouldOverrideBuilder: false
}

/**
 * execution-apis' testing_buildBlockV1: the block that would follow the head, with the consensus layer's attributes
 * and the transactions given, built and not kept. The owner's, as the other methods that make blocks: the spec
 * calls it sensitive, for testing only.
 */
export const buildBlockV1 = defineMethod({
  name: 'testing_buildBlockV1',
  access: 'owner',
  params,
  handler: async ([parentHash, attributes, transactions, extraData], { producer }): Promise<BuiltPayloadJSON> => {
    const built = await producer.buildPayload({
      parentHash,
      attributes: {
        timestamp: attributes.timestamp,
        prevRandao: attributes.prevRandao,
        suggestedFeeRecipient: attributes.suggestedFeeRecipient,
        withdrawals: attributes.withdrawals ?? [],
        parentBeaconBlockRoot: attributes.parentBeaconBlockRoot,
      },
      transactions: transactions?.map((raw) => hexToBytes(raw)),
      extraData: extraData === null || extraData === undefined ? undefined : hexToBytes(extraData),
    })
    const { header } = built.block
    const hex = (bytes: Uint8Array) => bytesToHex(bytes) as Hex
    return {
      executionPayload: {
        parentHash: hex(header.parentHash),
        feeRecipient: header.coinbase.toString() as Hex,
        stateRoot: hex(header.stateRoot),
        receiptsRoot: hex(header.receiptTrie),
        logsBloom: hex(header.logsBloom),
        prevRandao: hex(header.mixHash),
        blockNumber: toQuantity(header.number),
        gasLimit: toQuantity(header.gasLimit),
        gasUsed: toQuantity(header.gasUsed),
        timestamp: toQuantity(header.timestamp),
        extraData: hex(header.extraData),
        baseFeePerGas: toQuantity(header.baseFeePerGas ?? 0n),
        blockHash: hex(built.block.hash()),
        transactions: built.block.transactions.map((tx) => hex(tx.serialize())),
        ...(built.block.withdrawals === undefined
          ? {}
          : {
              withdrawals: built.block.withdrawals.map((w) => ({
                index: toQuantity(w.index),
                validatorIndex: toQuantity(w.validatorIndex),
                address: w.address.toString() as Hex,
                amount: toQuantity(w.amount),
              })),
            }),
        ...(header.blobGasUsed === undefined ? {} : { blobGasUsed: toQuantity(header.blobGasUsed) }),
        ...(header.excessBlobGas === undefined ? {} : { excessBlobGas: toQuantity(header.excessBlobGas) }),
      },
      blockValue: toQuantity(built.blockValue),
      // Transactions arrive in their canonical form, without blobs: there are none to bundle.
      blobsBundle: { commitments: [], proofs: [], blobs: [] },
      executionRequests: built.executionRequests,
      shouldOverrideBuilder: false,
    }
  },
})
