/**
 * The upstream's history up to the fork block (docs/fork.md#what-the-upstream-answers): its blocks, transactions,
 * receipts and logs, and its state at the blocks before the fork block, answered by forwarding the request. An answer
 * that names a block at or before the fork block never changes, so it is kept, in memory and in the cache; an answer
 * from past the fork block is none of the fork's, and is answered as not found.
 */
import type { UpstreamTransport } from './transport.ts'
import type { ForkBlock } from './upstream.ts'

export type UpstreamHistory = {
  /**
   * The upstream's answer to a request that names a block at or before the fork block by number (the caller has
   * made sure it does): kept once answered.
   */
  at(method: string, params: unknown[]): Promise<unknown>
  /**
   * The upstream's answer to a request by hash (a transaction, a receipt, a block), or null when the upstream has
   * none at or before the fork block: `numberField` of the answer says its block.
   */
  byHash(method: string, params: unknown[], numberField: 'number' | 'blockNumber'): Promise<unknown>
  /** The upstream's answer to a request about its history, not kept: a trace, which may be large and is asked for seldom. */
  forward(method: string, params: unknown[]): Promise<unknown>
}

type AnswerCache = { answer(request: string): string | undefined; putAnswer(request: string, answer: string): void }

export function createUpstreamHistory(options: { transport: UpstreamTransport; fork: ForkBlock; cache?: AnswerCache }): UpstreamHistory {
  const { transport, fork, cache } = options
  const kept = new Map<string, unknown>()

  async function ask(method: string, params: unknown[], keep: (answer: unknown) => boolean): Promise<unknown> {
    const request = JSON.stringify([method, params])
    if (kept.has(request)) return kept.get(request)
    const cached = cache?.answer(request)
    if (cached !== undefined) {
      const answer = JSON.parse(cached) as unknown
      kept.set(request, answer)
      return answer
    }
    const answer = await transport.call(method, params, `${method} ${params.map((param) => JSON.stringify(param)).join(' ')}`)
    if (keep(answer)) {
      kept.set(request, answer)
      cache?.putAnswer(request, JSON.stringify(answer))
    }
    return answer
  }

  return {
    at: (method, params) => ask(method, params, () => true),
    forward: (method, params) => transport.call(method, params, `${method} ${params.map((param) => JSON.stringify(param)).join(' ')}`),
    async byHash(method, params, numberField) {
      const before = (answer: unknown) => {
        const number = (answer as Record<string, unknown> | null)?.[numberField]
        return typeof number === 'string' && /^0x[0-9a-f]+$/i.test(number) && BigInt(number) <= fork.number
      }
      // A hash the upstream does not know yet may be mined later: only what it places at or before the fork is kept.
      const answer = await ask(method, params, before)
      return before(answer) ? answer : null
    },
  }
}
