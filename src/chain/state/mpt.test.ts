import { MerklePatriciaTrie, createMerkleProof } from '@ethereumjs/mpt'
import { KECCAK256_RLP, bytesToHex } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { keccak256 } from '../crypto/keccak.ts'
import { buildTrie, insert, lookup, nibblesOf, proof, remove, rootHash } from './mpt.ts'

import type { TrieNode } from './mpt.ts'

/** Deterministic bytes: keccak of a counter, cut to `length`. */
const bytes = (seed: number, length: number) => keccak256(Uint8Array.of(seed >> 24, seed >> 16, seed >> 8, seed)).slice(0, length)

/** A key near another: the first `prefix` bytes of `near`, the rest its own. */
function keyOf(seed: number, near?: Uint8Array, prefix = 0): Uint8Array {
  const key = bytes(seed, 32)
  if (near !== undefined) key.set(near.subarray(0, prefix))
  return key
}

const hex = (value: Uint8Array) => bytesToHex(value)

describe('the trie of decoded nodes', () => {
  test('has the roots and proofs @ethereumjs/mpt has, through puts, overwrites and deletes', async () => {
    const reference = new MerklePatriciaTrie()
    let trie: TrieNode | undefined
    const keys: Uint8Array[] = []
    expect(rootHash(trie)).toEqual(KECCAK256_RLP)
    for (let step = 0; step < 1500; step++) {
      const choice = bytes(step, 1)[0]!
      if (keys.length > 0 && choice < 70) {
        // Delete an existing key, or one never put.
        const key = choice < 60 ? keys.splice(choice % keys.length, 1)[0]! : keyOf(100_000 + step)
        await reference.del(key)
        trie = remove(trie, nibblesOf(key))
      } else {
        // A new key, often sharing a prefix of 1 to 31 bytes with one already in; or an existing key overwritten.
        const key = keys.length > 0 && choice > 230 ? keys[choice % keys.length]! : keyOf(step, keys[choice % Math.max(1, keys.length)], choice % 32)
        if (!keys.some((other) => hex(other) === hex(key))) keys.push(key)
        // Values from 1 byte (embedded leaves) to 40.
        const value = bytes(step + 7, 1 + (choice % 40))
        await reference.put(key, value)
        trie = insert(trie, nibblesOf(key), value)
      }
      if (step % 25 === 0 || step > 1450) {
        expect(hex(rootHash(trie))).toBe(hex(reference.root()))
        for (const key of keys.slice(0, 5)) {
          expect(lookup(trie, nibblesOf(key))).toEqual(await reference.get(key))
          const expected = (await createMerkleProof(reference, key)).filter((node, i) => i === 0 || node.length >= 32)
          expect(proof(trie, nibblesOf(key)).map(hex)).toEqual(expected.map(hex))
        }
      }
    }
    // Down to nothing again.
    for (const key of keys) trie = remove(trie, nibblesOf(key))
    expect(trie).toBeUndefined()
  })

  test('an old root stays as it was after later updates: a preview is taken back by keeping it', () => {
    const keys = Array.from({ length: 200 }, (_, i) => keyOf(i))
    let trie: TrieNode | undefined
    for (const key of keys) trie = insert(trie, nibblesOf(key), bytes(1, 33))
    const before = trie
    const rootBefore = hex(rootHash(before))
    let after = trie
    for (const key of keys.slice(0, 100)) after = remove(after, nibblesOf(key))
    after = insert(after, nibblesOf(keyOf(999)), bytes(2, 5))
    expect(hex(rootHash(after))).not.toBe(rootBefore)
    expect(hex(rootHash(before))).toBe(rootBefore)
    expect(lookup(before, nibblesOf(keys[0]!))).toEqual(bytes(1, 33))
    expect(remove(before, nibblesOf(keyOf(12_345)))).toBe(before)
  })

  test('error: built from two leaves with one key, it says so', () => {
    const key = nibblesOf(keyOf(1))
    expect(() =>
      buildTrie([
        { key, value: bytes(1, 3) },
        { key, value: bytes(2, 3) },
      ]),
    ).toThrow('a trie was built from two leaves with the same key')
  })

  test('built at once from its leaves, it is the trie their inserts make', () => {
    for (const count of [0, 1, 2, 17, 500]) {
      const leaves = Array.from({ length: count }, (_, i) => ({
        key: nibblesOf(keyOf(i * 3 + count, i > 0 ? keyOf((i - 1) * 3 + count) : undefined, i % 5)),
        value: bytes(i, 1 + (i % 35)),
      }))
      let inserted: TrieNode | undefined
      for (const { key, value } of leaves) inserted = insert(inserted, key, value)
      const built = buildTrie(leaves.toReversed())
      expect(hex(rootHash(built))).toBe(hex(rootHash(inserted)))
      // Updates go on from a built trie as from the other.
      const next = nibblesOf(keyOf(77_777))
      expect(hex(rootHash(insert(built, next, bytes(3, 3))))).toBe(hex(rootHash(insert(inserted, next, bytes(3, 3)))))
    }
  })
})
