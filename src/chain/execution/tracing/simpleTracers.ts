import type { Message } from '@ethereumjs/evm'
import type { TraceStart, Tracer } from './tracer.ts'

/** geth's noopTracer: it listens to nothing and answers `{}`, which measures what tracing itself costs. */
export function createNoopTracer(): Tracer {
  return { hooks: {}, result: () => ({}) }
}

/**
 * geth's 4byteTracer: how often each function selector was called with each calldata size, as
 * `"0x<selector>-<size after the selector>": count`. Creations, precompiles and calls without a selector are left out.
 */
export function createFourByteTracer(start: TraceStart): Tracer {
  const counts = new Map<string, number>()
  function beforeMessage(message: Message) {
    if (message.to === undefined || message.data.length < 4) return
    if (start.precompiles.has(message.to.toString() as `0x${string}`)) return
    const key = `0x${Buffer.from(message.data.subarray(0, 4)).toString('hex')}-${message.data.length - 4}`
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return {
    hooks: { beforeMessage },
    result: () => Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  }
}
