import { BlockNotFoundError } from '../errors.ts'

import type { Hex } from '../../hex.ts'
import type { StateHistory } from '../state/history.ts'
import type { StateReader } from '../state/types.ts'
import type { BlockSpecifier } from '../types.ts'
import type { SealedBlocks } from './sealedBlocks.ts'
import type { PendingSnapshot, SealedBlock } from './types.ts'

/** How far `safe` and `finalized` trail the head on a dev chain, as anvil has them. */
const CONFIRMATION_DEPTH = { safe: 32n, finalized: 64n }

export type ResolvedBlock = { kind: 'sealed'; block: SealedBlock } | { kind: 'pending'; block: PendingSnapshot }

export type BlockResolver = {
  /** The block a specifier names; BlockNotFoundError when there is none. */
  resolve(block: BlockSpecifier): ResolvedBlock
  /** The block a specifier names; undefined when there is none. */
  resolveIfAny(block: BlockSpecifier): ResolvedBlock | undefined
  /** The number a specifier names, without reading a sealed block back from the store. */
  numberOf(block: BlockSpecifier): bigint
}

/**
 * Block tags, as docs/chain.md sets them: `latest` is the last sealed block, `pending` the block
 * being built as of its newest flashblock, `safe` and `finalized` trail the head by 32 and 64 blocks (floored at
 * the first block), or are the head itself after an import, which no consensus layer can dispute.
 */
export function createBlockResolver(chain: {
  blocks: SealedBlocks
  pending: () => PendingSnapshot
  /** The pending block as of the flashblock whose block hash this is, while its block is being built. */
  pendingByHash: (hash: Hex) => PendingSnapshot | undefined
  finalizedAtHead: () => boolean
}): BlockResolver {
  const { blocks } = chain

  function resolve(specifier: BlockSpecifier): ResolvedBlock {
    if (typeof specifier === 'bigint') {
      const block = blocks.byNumber(specifier)
      if (block === undefined) throw new BlockNotFoundError(`0x${specifier.toString(16)}`)
      return { kind: 'sealed', block }
    }
    if (typeof specifier === 'object') {
      const block = blocks.byHash(specifier.blockHash)
      if (block !== undefined) return { kind: 'sealed', block }
      // A pre-confirmed receipt's block hash names the pending block as of its flashblock (docs/chain.md).
      const pending = chain.pendingByHash(specifier.blockHash)
      if (pending === undefined) throw new BlockNotFoundError(specifier.blockHash)
      return { kind: 'pending', block: pending }
    }
    switch (specifier) {
      case 'pending':
        return { kind: 'pending', block: chain.pending() }
      case 'latest':
        return { kind: 'sealed', block: blocks.head() }
      case 'earliest':
        // On a fork, the fork block: the blocks before it are the upstream's.
        return { kind: 'sealed', block: blocks.byNumber(blocks.first)! }
      case 'safe':
      case 'finalized': {
        const head = blocks.head().number
        const number = chain.finalizedAtHead() ? head : head - CONFIRMATION_DEPTH[specifier]
        return { kind: 'sealed', block: blocks.byNumber(number > blocks.first ? number : blocks.first)! }
      }
    }
  }

  return {
    resolve,
    resolveIfAny(specifier) {
      try {
        return resolve(specifier)
      } catch (error) {
        if (error instanceof BlockNotFoundError) return undefined
        throw error
      }
    },
    numberOf(specifier) {
      if (typeof specifier === 'bigint') {
        if (specifier < blocks.first || specifier > blocks.head().number) throw new BlockNotFoundError(`0x${specifier.toString(16)}`)
        return specifier
      }
      if (typeof specifier === 'object') {
        const number = blocks.numberOf(specifier.blockHash) ?? chain.pendingByHash(specifier.blockHash)?.env.number
        if (number === undefined) throw new BlockNotFoundError(specifier.blockHash)
        return number
      }
      const resolved = resolve(specifier)
      return resolved.kind === 'pending' ? resolved.block.env.number : resolved.block.number
    },
  }
}

/** The state after a block: the pending block's own, or a sealed block's from the history. */
export function stateOf(resolved: ResolvedBlock, history: StateHistory): StateReader {
  return resolved.kind === 'pending' ? resolved.block.state : history.at(resolved.block.number)
}
