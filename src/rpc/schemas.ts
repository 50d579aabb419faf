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

export const quantity = z.string().transform((value, context) => {
  if (!/^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/.test(value)) {
    context.addIssue({
      code: 'custom',
      message: /^0x0[0-9a-fA-F]+$/.test(value)
        ? 'hex number with leading zero digits'
        : value === '0x'
          ? 'hex string "0x"'
          : /^0x/.test(value)
            ? 'invalid hex string'
            : 'hex string without 0x prefix',
    })
    return z.NEVER
  }
  if (value.length > 66) {
    context.addIssue({ code: 'custom', message: 'hex number > 256 bits' })
    return z.NEVER
  }
  return BigInt(value)
})

/** A hex quantity, or a JSON integer as Hardhat and anvil also take for counts, seconds and timestamps. */
export const quantityOrNumber = z.union([quantity, z.number().int().nonnegative().transform(BigInt)])

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

/** A block tag, a number, or an EIP-1898 object. */
export const block: z.ZodType<BlockSpecifier, string | object> = z.union(
  [
    tag,
    // geth reads a bare 32-byte hash as a block hash (EIP-1898's short form).
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/)
      .transform((blockHash) => ({ blockHash: blockHash.toLowerCase() as Hex })),
    uint64,
    z.strictObject({ blockNumber: uint64 }).transform((value) => value.blockNumber),
    z.strictObject({ blockHash: hash, requireCanonical: z.boolean().optional() }),
  ],
  { error: 'invalid block number or tag, want "latest", "pending", "safe", "finalized", "earliest", a hex number or an EIP-1898 object' },
)

const accessList = z.array(z.object({ address, storageKeys: z.array(hash) }))

const authorization = z.object({
  chainId: quantity,
  address,
  nonce: uint64,
  yParity: quantity.transform(Number),
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
    nonce: uint64.optional(),
    type: quantity.transform(Number).optional(),
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

/** geth's block overrides (fourth argument). */
export const blockOverrides = z.strictObject({
  number: uint64.optional(),
  time: uint64.optional(),
  gasLimit: uint64.optional(),
  feeRecipient: address.optional(),
  prevRandao: hash.optional(),
  baseFeePerGas: quantity.optional(),
}) as z.ZodType<BlockOverrides, unknown>
