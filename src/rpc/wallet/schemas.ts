import * as Address from 'ox/Address'
import { z } from 'zod'

import { approvalDecisions, approvalKeys } from '../../wallet/approvals.ts'
import { data, strictQuantity } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/** Method reference §2.3: `from` must match `^0x[0-9a-fA-F]{40}$`. */
const accountAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must match ^0x[0-9a-fA-F]{40}$')
  .transform((value) => value.toLowerCase() as Hex)

/**
 * Capabilities by name, every own key kept as sent: zod's records and objects drop a `__proto__` key, which must be
 * refused (5700) unless marked optional, like any other capability this wallet does not support.
 */
const capabilities = z.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  'expected an object of capabilities',
)

/**
 * Capabilities with the one the wallet honours under `name` checked by `schema`, the others kept as sent (an
 * unsupported one is refused later, with 5700, unless optional).
 */
function withCapability(name: string, schema: z.ZodType) {
  return capabilities.transform((given, context) => {
    if (given[name] === undefined) return given
    const parsed = schema.safeParse(given[name])
    if (parsed.success) return { ...given, [name]: parsed.data }
    for (const issue of parsed.error.issues) context.addIssue({ ...issue, path: [name, ...issue.path] } as never)
    return z.NEVER
  })
}

const gasLimitOverride = z.object({ value: strictQuantity.refine((value) => value > 0n, 'must be greater than 0') }).catchall(z.unknown())
/** ERC-8021's attribution: bytes the wallet appends to each call's data. */
const dataSuffix = z.object({ value: data }).catchall(z.unknown())

const call = z.object({
  to: accountAddress,
  // viem leaves out a zero value (docs/wallet.md, "The order of checks").
  value: strictQuantity.optional().transform((value) => value ?? 0n),
  data: data.optional().transform((value) => value ?? '0x'),
  capabilities: withCapability('gasLimitOverride', gasLimitOverride).optional(),
})

/** wallet_sendCalls' one parameter (EIP-5792 2.0.0). */
export const sendCallsRequest = z
  .object({
    version: z.string(),
    id: z.string().min(1).max(4096).optional(),
    from: accountAddress,
    chainId: z.string().regex(/^0x([1-9a-f]+[0-9a-f]*|0)$/, 'must match ^0x([1-9a-f]+[0-9a-f]*|0)$') as z.ZodType<Hex, string>,
    atomicRequired: z.boolean(),
    calls: z.array(call).min(1),
    capabilities: withCapability('dataSuffix', dataSuffix).optional(),
  })
  .superRefine((request, context) => {
    // ERC-7821 reads a call to the zero address as a call to the account itself, so an atomic batch cannot make one.
    if (!request.atomicRequired) return
    for (const [index, entry] of request.calls.entries()) {
      if (/^0x0{40}$/.test(entry.to)) {
        context.addIssue({
          code: 'custom',
          path: ['calls', index, 'to'],
          message: 'an atomic batch cannot call the zero address (ERC-7821 reads it as the account itself)',
        })
      }
    }
  })

/** EIP-747's asset, validated field by field with messages that name the field (docs/wallet.md, "wallet_watchAsset"). */
const asset = z.object({
  type: z.string().superRefine((type, context) => {
    if (type !== 'ERC20') context.addIssue({ code: 'custom', message: `Asset of type ${type} not supported` })
  }) as z.ZodType<'ERC20', string>,
  options: z.object({
    address: z.string().transform((value, context) => {
      if (!/^0x[0-9a-fA-F]{40}$/.test(value)) {
        context.addIssue({ code: 'custom', message: 'must be a 42-character hexadecimal address' })
        return z.NEVER
      }
      const mixedCase = value.slice(2) !== value.slice(2).toLowerCase() && value.slice(2) !== value.slice(2).toUpperCase()
      if (mixedCase && Address.checksum(value) !== value) {
        context.addIssue({ code: 'custom', message: `bad EIP-55 checksum, expected ${Address.checksum(value)}` })
        return z.NEVER
      }
      return value.toLowerCase() as Hex
    }),
    symbol: z.string().min(1, 'must be 1 to 11 characters').max(11, 'must be 1 to 11 characters'),
    decimals: z.number().int('must be an integer from 0 to 36').min(0, 'must be an integer from 0 to 36').max(36, 'must be an integer from 0 to 36'),
    image: z
      .string()
      .refine((value) => /^(https?:\/\/[^\s]+|data:[^\s]+)$/i.test(value) && URL.canParse(value), 'must be an http(s) or data: URL')
      .optional(),
  }),
})

/** EIP-747 params are one object; an array holding that object is accepted too. */
export const watchAssetParams = z.preprocess((params) => (Array.isArray(params) && params.length === 1 ? params[0] : params), asset)

const decision = z.enum(approvalDecisions)

export const approvalPolicy = z.object({
  default: decision,
  methods: z.partialRecord(z.enum(approvalKeys), decision).optional(),
})

/** A chain id as EIP-3085 and EIP-3326 give it: a hex quantity without leading zeros. */
export const chainIdParam = z
  .string()
  .regex(/^0x([1-9a-fA-F][0-9a-fA-F]*|0)$/, 'must be a hex quantity, as 0x7a69')
  .transform((value) => BigInt(value))
