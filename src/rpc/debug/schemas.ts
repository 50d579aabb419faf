import { z } from 'zod'

import { blockOverrides, stateOverrides } from '../schemas.ts'

import type { TraceOptions } from '../../chain/execution/tracing/trace.ts'

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }

/** A Go duration ("100ms", "5s", "1m30s", "1.5s"), as geth's `timeout` takes it; milliseconds. */
const duration = z.string().transform((value, context) => {
  const parts = [...value.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)]
  if (value === '0') return 0
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== value) {
    context.addIssue({ code: 'custom', message: `time: invalid duration ${JSON.stringify(value)}` })
    return z.NEVER
  }
  return parts.reduce((total, [, amount, unit]) => total + Number(amount) * UNITS[unit!]!, 0)
})

/** geth's TraceConfig fields: the struct logger's options, or a named tracer with its config, and a timeout. */
const traceConfigFields = {
  tracer: z.string().optional(),
  tracerConfig: z.record(z.string(), z.unknown()).optional(),
  timeout: duration.optional(),
  enableMemory: z.boolean().optional(),
  disableStack: z.boolean().optional(),
  disableStorage: z.boolean().optional(),
  enableReturnData: z.boolean().optional(),
  limit: z.number().int().nonnegative().optional(),
}

/** geth's TraceConfig. */
export const traceConfig = z
  .object(traceConfigFields)
  .transform(({ timeout, ...rest }): TraceOptions => ({ ...rest, ...(timeout === undefined ? {} : { timeoutMs: timeout }) }))

/** debug_traceCall's config: a TraceConfig with the overrides eth_call takes as arguments. */
export const traceCallConfig = z
  .object({
    ...traceConfigFields,
    stateOverrides: stateOverrides.optional(),
    blockOverrides: blockOverrides.optional(),
  })
  .transform(({ timeout, stateOverrides: state, blockOverrides: block, ...rest }) => ({
    options: { ...rest, ...(timeout === undefined ? {} : { timeoutMs: timeout }) } as TraceOptions,
    overrides: { state, block },
  }))
