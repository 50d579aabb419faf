import { genTransactionsTrieRoot } from '@ethereumjs/block'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { bytesToHex, KECCAK256_RLP } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { TRIE_WRITES_PER_TURN } from '../../runtime/eventLoop.ts'
import { createOrderedTrie, orderedTrieRoot } from './orderedTrie.ts'

import type { TypedTransaction } from '@ethereumjs/tx'

/** Deterministic payloads of varied lengths, short (inlined in their nodes) and long (hashed). */
function payloads(count: number): Uint8Array[] {
  return Array.from({ length: count }, (_, i) => Uint8Array.from({ length: 1 + ((i * 37) % 140) }, (_, j) => (i * 31 + j * 7) & 0xff))
}

describe('orderedTrieRoot', () => {
  test.each([0, 1, 2, TRIE_WRITES_PER_TURN, TRIE_WRITES_PER_TURN + 1, 200])('agrees with ethereumjs on %i entries', async (count) => {
    const items = payloads(count)
    // genTransactionsTrieRoot reads nothing of a transaction but serialize().
    const asTransactions = items.map((item) => ({ serialize: () => item }) as unknown as TypedTransaction)
    const expected = await genTransactionsTrieRoot(asTransactions, new MerklePatriciaTrie())
    expect(bytesToHex(await orderedTrieRoot(count, (i) => items[i]!))).toBe(bytesToHex(expected))
  })

  test('the empty list has the empty trie root', async () => {
    expect(bytesToHex(await orderedTrieRoot(0, () => new Uint8Array()))).toBe(bytesToHex(KECCAK256_RLP))
  })

  test('yields to the event loop between turns of writes', async () => {
    let turns = 0
    let done = false
    const tick = () => {
      if (done) return
      turns++
      setImmediate(tick)
    }
    setImmediate(tick)
    const items = payloads(3 * TRIE_WRITES_PER_TURN)
    await orderedTrieRoot(items.length, (i) => items[i]!)
    done = true
    expect(turns).toBeGreaterThanOrEqual(3)
  })
})

describe('createOrderedTrie', () => {
  test('gives, as the list grows, the root a whole build of the same entries gives', async () => {
    const items = payloads(3 * TRIE_WRITES_PER_TURN + 7)
    const encode = (i: number) => items[i]!
    const trie = createOrderedTrie(encode)
    for (const count of [0, 1, 5, 5, TRIE_WRITES_PER_TURN + 2, items.length]) {
      expect(bytesToHex(await trie.rootOf(count))).toBe(bytesToHex(await orderedTrieRoot(count, encode)))
    }
  })

  test('writes each entry once, even for roots asked for at once', async () => {
    const items = payloads(50)
    const written: number[] = []
    const trie = createOrderedTrie((i) => {
      written.push(i)
      return items[i]!
    })
    const roots = await Promise.all([trie.rootOf(20), trie.rootOf(50), trie.rootOf(50)])
    expect(written).toEqual(Array.from({ length: 50 }, (_, i) => i))
    expect(bytesToHex(roots[1])).toBe(bytesToHex(await orderedTrieRoot(50, (i) => items[i]!)))
    await expect(trie.rootOf(10)).rejects.toThrow('an ordered trie of 50 entries cannot give the root of 10')
  })
})
