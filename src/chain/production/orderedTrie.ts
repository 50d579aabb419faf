import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_RLP } from '@ethereumjs/util'

import { insert, nibblesOf } from '../state/mpt.ts'
import { hashInTurns, trieWorkDone } from '../state/trie.ts'

import type { TrieNode } from '../state/mpt.ts'

/**
 * The root of the trie that maps RLP(i) to `encode(i)` for every i below `count`: how a block commits to its
 * transactions and its receipts. Written in turns of the event loop, TRIE_WRITES_PER_TURN entries each: the two
 * tries of a block of 400 transfers took 50–100 ms in one piece, during which no receipt poll for the flashblock the
 * seal had just published was answered.
 */
export function orderedTrieRoot(count: number, encode: (index: number) => Uint8Array): Promise<Uint8Array> {
  return createOrderedTrie(encode).rootOf(count)
}

/**
 * The same trie for a list that only grows, as a block's transactions and receipts do while it is built: each
 * root writes only the entries added since the last, so a root per flashblock costs what the flashblock added, and
 * the seal only what its last flashblock added.
 */
export type OrderedTrie = {
  /** The root of the first `count` entries; `count` never goes down. */
  rootOf(count: number): Promise<Uint8Array>
}

export function createOrderedTrie(encode: (index: number) => Uint8Array): OrderedTrie {
  // Keys are RLP(i), which no other key begins with: the trie of mpt.ts, made for keys of one length, holds them too.
  let trie: TrieNode | undefined
  let written = 0
  // Roots asked for at once are written one after the other, so no entry is written twice.
  let writing: Promise<unknown> = Promise.resolve()
  return {
    rootOf(count) {
      const root = writing.then(async () => {
        if (count < written) throw new Error(`an ordered trie of ${written} entries cannot give the root of ${count}`)
        if (count === 0) return KECCAK256_RLP
        for (; written < count; written++) {
          trie = insert(trie, nibblesOf(RLP.encode(written)), encode(written))
          await trieWorkDone()
        }
        return hashInTurns(trie)
      })
      writing = root.catch(() => {})
      return root
    },
  }
}
