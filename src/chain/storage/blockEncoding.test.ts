import { randomBytes } from 'node:crypto'

import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_RLP, KECCAK256_RLP_ARRAY } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { decodeStoredBlock, encodeStoredBlock } from './blockEncoding.ts'

/** An empty block's RLP as a dev chain seals it: the header's own hashes random, its empty parts as they are. */
function emptyBlock(): Uint8Array {
  const header = [
    randomBytes(32), // parent hash
    KECCAK256_RLP_ARRAY,
    new Uint8Array(20),
    randomBytes(32), // state root
    KECCAK256_RLP,
    KECCAK256_RLP,
    new Uint8Array(256),
    new Uint8Array(0),
    Uint8Array.of(0x0b),
    Uint8Array.of(0x01, 0xc9, 0xc3, 0x80),
    new Uint8Array(0),
    Uint8Array.of(0x6b, 0x09, 0xdd, 0x64),
    new Uint8Array(0),
    randomBytes(32), // prevRandao
    new Uint8Array(8),
    Uint8Array.of(0x0d, 0xb8, 0x70, 0x1b),
    KECCAK256_RLP,
    new Uint8Array(0),
    new Uint8Array(0),
    new Uint8Array(32),
    Uint8Array.from(Buffer.from('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex')),
  ]
  return RLP.encode([header, [], [], []])
}

describe('the kept form of a block', () => {
  test("an empty block's 616 bytes are kept in under 300, and read back as they were", () => {
    const rlp = emptyBlock()
    expect(rlp.length).toBe(616)
    const kept = encodeStoredBlock(rlp)
    expect(kept[0]).toBe(0)
    expect(kept.length).toBeLessThan(300)
    expect(decodeStoredBlock(kept)).toEqual(rlp)
  })

  test('a block past 8 KiB, and one that deflating would not shorten, are kept as they are', () => {
    const large = RLP.encode([[randomBytes(9000)], [], [], []])
    expect(encodeStoredBlock(large)).toBe(large)
    const dense = RLP.encode([randomBytes(200)])
    expect(encodeStoredBlock(dense)).toBe(dense)
    expect(decodeStoredBlock(dense)).toBe(dense)
  })

  test('a block kept before deflating (its RLP as it is) reads as it is', () => {
    const rlp = emptyBlock()
    expect(decodeStoredBlock(rlp)).toBe(rlp)
  })

  test('bytes that begin with the deflated mark, which no RLP list does, still read back as they were', () => {
    for (const bytes of [Uint8Array.of(0), Uint8Array.of(0, 1, 2), new Uint8Array(10_000)]) {
      expect(decodeStoredBlock(encodeStoredBlock(bytes))).toEqual(bytes)
    }
  })
})
