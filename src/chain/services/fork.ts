import type { SealedBlocks } from '../blocks/sealedBlocks.ts'
import type { BlockResolver } from '../blocks/tags.ts'
import type { OpenFork } from '../fork/fork.ts'
import type { BlockSpecifier } from '../types.ts'
import type { Hex } from '../../hex.ts'

export type ForkParts = {
  /** The fork the chain runs on now (a reset may move it), or undefined for a chain of its own. */
  current: () => OpenFork | undefined
  blocks: SealedBlocks
  resolver: BlockResolver
  retryBackoffMs: number
}

/** What a fork is of: its upstream (scheme, host and port only: a path or query may hold an API key) and block. */
export type ForkInfo = { upstream: string; chainId: bigint; number: bigint; hash: Hex; retryBackoffMs: number }

/**
 * What the upstream answers for, on a fork: `blocks`, a block's header, transactions and receipts, which are the
 * upstream's at and before the fork block (the fork block's body is the upstream's, not fetched here); `state`, the
 * state after a block, which is the upstream's before the fork block and this chain's from it on.
 */
export type UpstreamScope = 'blocks' | 'state'

/** The fork the chain runs on (docs/fork.md), and the upstream's answers for the blocks before it. */
export type ForkService = {
  /** The upstream chain and block forked; undefined for a chain of its own. */
  info(): ForkInfo | undefined
  /**
   * How the upstream names `block` when it, not this chain, answers for it in `scope`: a number, or the hash the
   * request gave. Undefined when this chain answers (or is no fork).
   */
  upstreamBlock(block: BlockSpecifier, scope: UpstreamScope): Promise<Hex | { blockHash: Hex } | undefined>
  /** The upstream's answer to a request at a block upstreamBlock gave; kept once answered. */
  at(method: string, params: unknown[]): Promise<unknown>
  /** The upstream's answer to a lookup by hash, or null when it has none at or before the fork block. */
  byHash(method: string, params: unknown[], numberField: 'number' | 'blockNumber'): Promise<unknown>
  /** The upstream's answer to a request about its history before the fork block, not kept (a trace). */
  forward(method: string, params: unknown[]): Promise<unknown>
}

export function createForkService(parts: ForkParts): ForkService {
  const { current, blocks, resolver } = parts
  const hex = (number: bigint): Hex => `0x${number.toString(16)}`

  function required(): OpenFork {
    const fork = current()
    if (fork === undefined) throw new Error('this chain is not a fork')
    return fork
  }

  /** Whether block `number` is the upstream's to answer for in `scope`. */
  const upstreams = (number: bigint, scope: UpstreamScope, forkNumber: bigint) => (scope === 'blocks' ? number <= forkNumber : number < forkNumber)

  return {
    info() {
      const fork = current()
      return fork === undefined ? undefined : { upstream: fork.upstream, ...fork.block, retryBackoffMs: parts.retryBackoffMs }
    },

    async upstreamBlock(block, scope) {
      const fork = current()
      if (fork === undefined || block === 'pending') return undefined
      const forkNumber = fork.block.number
      if (typeof block === 'object') {
        const local = blocks.numberOf(block.blockHash)
        if (local !== undefined) return upstreams(local, scope, forkNumber) ? block : undefined
        // A hash this chain does not know is the upstream's, if the upstream places it at or before the fork block.
        const header = (await fork.history.byHash('eth_getBlockByHash', [block.blockHash, false], 'number')) as { number: Hex } | null
        return header !== null && upstreams(BigInt(header.number), scope, forkNumber) ? block : undefined
      }
      // `earliest` is the upstream's block 0; the other tags name this chain's blocks (safe and finalized stop at the fork block).
      const number = block === 'earliest' ? 0n : typeof block === 'bigint' ? block : resolver.numberOf(block)
      return upstreams(number, scope, forkNumber) ? hex(number) : undefined
    },

    at: (method, params) => required().history.at(method, params),
    byHash: (method, params, numberField) => required().history.byHash(method, params, numberField),
    forward: (method, params) => required().history.forward(method, params),
  }
}
