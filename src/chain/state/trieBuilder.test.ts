import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { KECCAK256_RLP, MapDB, ValueEncoding, bytesToHex } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { keccak256 } from '../crypto/keccak.ts'
import { buildTrie } from './trieBuilder.ts'

import type { TrieLeaf, TrieNodes } from './trieBuilder.ts'

/** Deterministic bytes: keccak of a counter, cut to `length`. */
const bytes = (seed: number, length: number) => keccak256(Uint8Array.of(seed >> 24, seed >> 16, seed >> 8, seed)).slice(0, length)

async function putOneByOne(leaves: readonly TrieLeaf[]): Promise<MerklePatriciaTrie> {
  const trie = new MerklePatriciaTrie({ useKeyHashing: false })
  for (const { key, value } of leaves) await trie.put(key, value)
  return trie
}

function opened(nodes: TrieNodes, root: Uint8Array): MerklePatriciaTrie {
  return new MerklePatriciaTrie({ useKeyHashing: false, db: new MapDB(nodes), valueEncoding: ValueEncoding.Bytes, root })
}

/** Leaves with keys that share prefixes of every length, and values short enough to embed nodes and long enough not to. */
function leavesOf(count: number, seed: number): TrieLeaf[] {
  const leaves: TrieLeaf[] = []
  for (let i = 0; i < count; i++) {
    const key = bytes(seed + i, 32)
    // Every third key shares a long prefix with the one before it, down to the last nibble.
    if (i % 3 === 2) key.set(leaves[i - 1]!.key.subarray(0, 1 + (i % 31)))
    leaves.push({ key, value: bytes(seed * 7 + i, 1 + (i % 40)) })
  }
  return leaves
}

describe('buildTrie', () => {
  test.each([0, 1, 2, 3, 17, 300, 2000])('has the root and nodes a trie of %i leaves put one by one has', async (count) => {
    const leaves = leavesOf(count, count * 1000)
    const nodes: TrieNodes = new Map()
    const root = buildTrie(leaves.toReversed(), nodes)
    const expected = await putOneByOne(leaves)
    expect(bytesToHex(root)).toBe(bytesToHex(expected.root()))
    if (count === 0) expect(root).toEqual(KECCAK256_RLP)

    // The trie opened over the built nodes reads every leaf, and goes on as the other under the same changes.
    const trie = opened(nodes, root)
    for (const { key, value } of leaves) expect(await trie.get(key)).toEqual(value)
    const changes = leavesOf(40, count * 1000 + 500)
    for (const [i, { key, value }] of changes.entries()) {
      await trie.put(key, value)
      await expected.put(key, value)
      if (i < leaves.length) {
        await trie.del(leaves[i]!.key)
        await expected.del(leaves[i]!.key)
      }
      expect(bytesToHex(trie.root())).toBe(bytesToHex(expected.root()))
    }
  })

  test('stores only the nodes of 32 bytes or more, and the root whatever its size', () => {
    const nodes: TrieNodes = new Map()
    const root = buildTrie([{ key: bytes(1, 32), value: Uint8Array.of(1) }], nodes)
    expect([...nodes.keys()]).toEqual([bytesToHex(root).slice(2)])
    const many: TrieNodes = new Map()
    buildTrie(leavesOf(300, 5), many)
    for (const node of [...many.values()].slice(0, -1)) expect(node.length).toBeGreaterThanOrEqual(32)
  })
})
