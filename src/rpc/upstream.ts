/**
 * A method's answer on a fork, where its `upstream` rule (method.ts) gives the request to the fork's upstream: the
 * blocks, transactions, receipts and logs up to the fork block, and the state before it, are the upstream's
 * (docs/fork.md#what-the-upstream-answers). Everywhere else, and on a chain of its own, the handler answers.
 */
import { untilFetched } from '../chain/state/miss.ts'

import type { BlockSpecifier } from '../chain/types.ts'
import type { Method, MethodContext } from './method.ts'

const BLOCK_HASH = /^0x[0-9a-f]{64}$/

/**
 * The answer on a fork to a request whose params parsed: the upstream's where the method's rule says so, else its
 * handler's (run again once a read of upstream state it missed is fetched: chain/state/miss.ts).
 */
export async function answer(method: Method, wire: unknown, params: unknown, context: MethodContext): Promise<unknown> {
  const rule = method.upstream
  const local = () => untilFetched(() => method.handler(params, context))
  if (rule === undefined || !Array.isArray(wire)) return local()
  if ('byHash' in rule) {
    const found = await local()
    if (found !== null) return found
    // A transaction this chain holds (in its pool, say) is its own to answer for, not yet with a receipt.
    const hash = (params as unknown[])[0]
    if (typeof hash === 'string' && context.blocks.transaction(hash as `0x${string}`) !== undefined) return null
    return context.fork.byHash(method.name, wire, rule.byHash)
  }

  if ('transaction' in rule) {
    const hash = (params as unknown[])[rule.transaction] as `0x${string}`
    if (context.blocks.transaction(hash) !== undefined) return local()
    const placed = await context.fork.byHash('eth_getTransactionByHash', [hash], 'blockNumber')
    return placed === null ? local() : context.fork.forward(method.name, wire)
  }

  const given = (params as unknown[])[rule.block]
  if (given === undefined) return local()
  // eth_getBlockByHash and its kin take a bare hash, which their schemas leave a string.
  const block = typeof given === 'string' && BLOCK_HASH.test(given) ? { blockHash: given as `0x${string}` } : (given as BlockSpecifier)
  const at = await context.fork.upstreamBlock(block, rule.scope)
  if (at === undefined) return local()
  const forwarded = [...wire]
  // A tag or a number names the block by its number, so that `latest` is this chain's, not the upstream's.
  if (typeof at === 'string') forwarded[rule.block] = at
  return rule.kept === false ? context.fork.forward(method.name, forwarded) : context.fork.at(method.name, forwarded)
}
