import { z } from 'zod'

import type { BlockSpecifier } from '../chain/types.ts'
import type { CallRequest } from '../chain/execution/executor.ts'
import type { BlockOverrides, StateOverrides } from '../chain/execution/overrides.ts'
import type { Hex } from '../hex.ts'

/**
 * Wire primitives, each turning JSON into the typed value handlers use. Messages follow geth's where it has one,
 * since they end up in "invalid argument N: …".
 */

export const address = z.string().transform((value, context) => {
  if (!/^0x[0-9a-fA-F]*$/.test(value)) {
    context.addIssue({ code: 'custom', message: 'hex string without 0x prefix or with invalid characters, want an address' })
    return z.NEVER
  }
  if (value.length !== 42) {
    context.addIssue({ code: 'custom', message: `hex string has length ${value.length - 2}, want 40 for common.Address` })
    return z.NEVER
  }
  return value.toLowerCase() as Hex
})

/**
 * A quantity: a hex string, or a JSON integer. geth wants hex without leading zeros; anvil (whose U256 and U64 are
 * ruint's) also takes leading zeros (`0x08`, what ethers' `toBeHex(8)` gives) and JSON integers, and clients written
 * against anvil send both, so both are taken here. A JSON integer past 2^53 - 1 has lost digits before it arrives, so
 * it is refused rather than read wrong. What stays refused keeps geth's words.
 */
export const quantity = z
  .union([z.string(), z.number()], { error: 'invalid quantity, want a hex string or a JSON integer' })
  .transform((value, context) => {
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value) || value < 0) {
        context.addIssue({
          code: 'custom',
          message:
            Number.isInteger(value) && value > 0 ? 'number past 2^53 - 1, send it as a hex string' : 'invalid quantity, want a non-negative integer',
        })
        return z.NEVER
      }
      return BigInt(value)
    }
    if (!/^0x[0-9a-fA-F]+$/.test(value)) {
      context.addIssue({
        code: 'custom',
        message: value === '0x' ? 'hex string "0x"' : /^0x/.test(value) ? 'invalid hex string' : 'hex string without 0x prefix',
      })
      return z.NEVER
    }
    const number = BigInt(value)
    if (number >= 2n ** 256n) {
      context.addIssue({ code: 'custom', message: 'hex number > 256 bits' })
      return z.NEVER
    }
    return number
  })

/**
 * A quantity as geth and EIP-1474 write it: a hex string without leading zeros. The wallet methods take only this,
 * since their EIPs (EIP-5792) name that form and the wallet is a reference to test dApps against.
 */
export const strictQuantity = z
  .string()
  .refine((value) => !/^0x0[0-9a-fA-F]/.test(value), 'hex number with leading zero digits')
  .pipe(quantity as z.ZodType<bigint, string>)

/** A quantity that must fit in 64 bits (nonces, gas, block numbers). */
export const uint64 = quantity.refine((value) => value < 2n ** 64n, 'hex number > 64 bits')

export const data = z.string().transform((value, context) => {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(value)) {
    context.addIssue({
      code: 'custom',
      message: !value.startsWith('0x') ? 'hex string without 0x prefix' : value.length % 2 === 1 ? 'hex string of odd length' : 'invalid hex string',
    })
    return z.NEVER
  }
  return value.toLowerCase() as Hex
})

export const hash = data.refine((value) => value.length === 66, 'hex string must be 32 bytes')

/** A storage slot: geth accepts up to 32 bytes of hex and left-pads it. */
export const storageSlot = z.string().transform((value, context) => {
  if (!/^0x[0-9a-fA-F]{1,64}$/.test(value)) {
    context.addIssue({ code: 'custom', message: value.length > 66 ? 'hex string too long, want at most 32 bytes' : 'invalid hex string' })
    return z.NEVER
  }
  return `0x${value.slice(2).toLowerCase().padStart(64, '0')}` as Hex
})

const tag = z.enum(['latest', 'pending', 'safe', 'finalized', 'earliest'])

const blockError = 'invalid block number or tag, want "latest", "pending", "safe", "finalized", "earliest", a hex number or an EIP-1898 object'

/** A block number as a string, as anvil's BlockId reads it (alloy): hex, leading zeros allowed, never a JSON integer. */
const blockNumber = z.string().pipe(uint64 as z.ZodType<bigint, string>)

/** A block tag, a number, or an EIP-1898 object. */
export const block: z.ZodType<BlockSpecifier, string | object> = z.union(
  [
    tag,
    // geth reads a bare 32-byte hash as a block hash (EIP-1898's short form).
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/)
      .transform((blockHash) => ({ blockHash: blockHash.toLowerCase() as Hex })),
    blockNumber,
    z.strictObject({ blockNumber }).transform((value) => value.blockNumber),
    z.strictObject({ blockHash: hash, requireCanonical: z.boolean().optional() }),
  ],
  { error: blockError },
)

/**
 * The block of the methods that name a block by number alone (eth_getBlockByNumber,
 * eth_getBlockTransactionCountByNumber): what `block` takes, or a JSON integer, as anvil reads them
 * (alloy's lenient_block_number_or_tag). anvil takes a decimal string there too; geth and the execution-apis
 * fixtures refuse one ("hex string without 0x prefix"), and no client is known to send it, so it stays refused.
 */
export const blockByNumber: z.ZodType<BlockSpecifier, string | number | object> = z.union(
  [block, z.number().pipe(uint64 as z.ZodType<bigint, number>)],
  { error: blockError },
)

const accessList = z.array(z.object({ address, storageKeys: z.array(hash) }))

const authorization = z.object({
  chainId: quantity,
  address,
  nonce: uint64,
  // geth reads it into a uint8.
  yParity: quantity.refine((value) => value <= 0xffn, 'hex number > 8 bits').transform(Number),
  r: quantity,
  s: quantity,
})

/** The transaction object of eth_call, eth_estimateGas and eth_sendTransaction. */
export const callRequest = z
  .object({
    from: address.optional(),
    to: address.nullable().optional(),
    gas: uint64.optional(),
    gasPrice: quantity.optional(),
    maxFeePerGas: quantity.optional(),
    maxPriorityFeePerGas: quantity.optional(),
    maxFeePerBlobGas: quantity.optional(),
    value: quantity.optional(),
    data: data.optional(),
    input: data.optional(),
    // 2^64 - 1 is no nonce a transaction may have (EIP-2681).
    nonce: uint64.refine((nonce) => nonce < 2n ** 64n - 1n, 'nonce must be below 2^64 - 1 (EIP-2681)').optional(),
    type: quantity
      .refine((type) => type <= 4n, {
        error: (issue) => `transaction type 0x${(issue.input as bigint).toString(16)} is not supported: want 0x0 to 0x4`,
      })
      .transform(Number)
      .optional(),
    chainId: quantity.optional(),
    accessList: accessList.optional(),
    authorizationList: z.array(authorization).optional(),
    blobVersionedHashes: z.array(hash).optional(),
  })
  .superRefine((value, context) => {
    if (value.data !== undefined && value.input !== undefined && value.data !== value.input) {
      context.addIssue({ code: 'custom', message: 'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data' })
    }
    if (value.gasPrice !== undefined && (value.maxFeePerGas !== undefined || value.maxPriorityFeePerGas !== undefined)) {
      context.addIssue({ code: 'custom', message: 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified' })
    }
    if (value.maxFeePerGas !== undefined && value.maxPriorityFeePerGas !== undefined && value.maxPriorityFeePerGas > value.maxFeePerGas) {
      context.addIssue({ code: 'custom', message: `maxFeePerGas (${value.maxFeePerGas}) < maxPriorityFeePerGas (${value.maxPriorityFeePerGas})` })
    }
    // geth's words (core.ErrEmptyAuthList, ErrMissingBlobHashes) for a set-code or blob transaction without its list.
    if (value.authorizationList?.length === 0 || (value.type === 4 && value.authorizationList === undefined)) {
      context.addIssue({ code: 'custom', path: ['authorizationList'], message: 'EIP-7702 transaction with empty auth list' })
    }
    if (value.blobVersionedHashes?.length === 0 || (value.type === 3 && value.blobVersionedHashes === undefined)) {
      context.addIssue({ code: 'custom', path: ['blobVersionedHashes'], message: 'blob transaction missing blob hashes' })
    }
  })
  .transform(({ input, data: callData, chainId: _chainId, ...rest }): CallRequest => ({ ...rest, data: input ?? callData }))

const slots = z.record(storageSlot, hash)

/** What a state override may set for one account. */
const accountOverride = {
  balance: quantity.optional(),
  nonce: uint64.optional(),
  code: data.optional(),
  state: slots.optional(),
  stateDiff: slots.optional(),
}

/** geth's state override set (eth_call and eth_estimateGas, third argument). */
export const stateOverrides = z.record(address, z.strictObject(accountOverride)) as z.ZodType<StateOverrides, unknown>

/** eth_simulateV1's state overrides: eth_call's, and `movePrecompileToAddress`. */
export const simulationStateOverrides = z.record(
  address,
  z.strictObject({ ...accountOverride, movePrecompileToAddress: address.optional() }),
) as z.ZodType<StateOverrides, unknown>

/** What a block override may set. */
const blockOverride = {
  number: uint64.optional(),
  time: uint64.optional(),
  gasLimit: uint64.optional(),
  feeRecipient: address.optional(),
  prevRandao: hash.optional(),
  baseFeePerGas: quantity.optional(),
}

/** geth's block overrides (fourth argument). */
export const blockOverrides = z.strictObject(blockOverride) as z.ZodType<BlockOverrides, unknown>

/** eth_simulateV1's block overrides: eth_call's, and `blobBaseFee`. */
export const simulationBlockOverrides = z.strictObject({ ...blockOverride, blobBaseFee: quantity.optional() }) as z.ZodType<BlockOverrides, unknown>

// A null among alternatives matches any topic there, as in geth, so the whole position becomes null.
const topic = z.union([
  hash,
  z.array(hash.nullable()).transform((alternatives) => (alternatives.includes(null) ? null : (alternatives as Hex[]))),
  z.null(),
])

/** A log filter's `address` (one or a list) and `topics` (up to four positions), as geth reads them. */
export const logCriteria = {
  address: z.union([address, z.array(address)]).optional(),
  topics: z.array(topic).max(4).optional(),
}

/** What eth_getLogs and eth_newFilter take: criteria and a block range or one block by hash. */
export const logFilter = z.object({
  fromBlock: block.optional(),
  toBlock: block.optional(),
  blockHash: hash.optional(),
  ...logCriteria,
})
