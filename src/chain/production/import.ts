import { createBlockFromBytesArray } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, equalsBytes } from '@ethereumjs/util'

import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { SealedBlocks } from '../blocks/sealedBlocks.ts'
import type { Producer } from './producer.ts'

/**
 * Imports back-to-back RLP blocks (`--import`) on top of the head; each is executed and must match its header.
 * Blocks already on the chain are skipped, so a restart can pass the same file. Returns how many were imported.
 */
export async function importBlocks(bytes: Uint8Array, chain: { common: Common; blocks: SealedBlocks; producer: Producer }): Promise<number> {
  const { common, blocks, producer } = chain
  let rest = bytes
  let imported = 0
  while (rest.length > 0) {
    let block: Block
    try {
      const decoded = RLP.decode(rest, true)
      rest = decoded.remainder
      block = createBlockFromBytesArray(decoded.data as never, { common, setHardfork: true })
    } catch (error) {
      throw new Error(`import: cannot decode the block after block ${blocks.head().number}: ${error instanceof Error ? error.message : error}`)
    }
    const existing = blocks.hash(block.header.number)
    if (existing !== undefined) {
      if (!equalsBytes(existing, block.hash())) {
        throw new Error(`import: block ${block.header.number} differs from the one already on this chain (${bytesToHex(existing)})`)
      }
      continue
    }
    try {
      await producer.importBlock(block)
    } catch (error) {
      throw new Error(`import: ${error instanceof Error ? error.message : error}`)
    }
    imported++
  }
  return imported
}
