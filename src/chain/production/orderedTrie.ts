import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_RLP } from '@ethereumjs/util'

import { TRIE_WRITES_PER_TURN, yieldToEventLoop } from '../../runtime/eventLoop.ts'

import type { Common } from '@ethereumjs/common'

/**
 * The root of the trie that maps RLP(i) to `encode(i)` for every i below `count`: how a block commits to its
 * transactions and its receipts. Written in turns of the event loop, TRIE_WRITES_PER_TURN entries each: the two
 * tries of a block of 400 transfers took 50–100 ms in one piece, during which no receipt poll for the flashblock the
 * seal had just published was answered.
 */
export async function orderedTrieRoot(count: number, encode: (index: number) => Uint8Array, common?: Common): Promise<Uint8Array> {
  if (count === 0) return KECCAK256_RLP
  const trie = new MerklePatriciaTrie({ common })
  for (let index = 0; index < count; index++) {
    await trie.put(RLP.encode(index), encode(index))
    if ((index + 1) % TRIE_WRITES_PER_TURN === 0) await yieldToEventLoop()
  }
  return trie.root()
}
