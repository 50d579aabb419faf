import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { keccak256 } from './keccak.ts'

describe('keccak256', () => {
  test('known digests: the empty input and RLP of the empty string', () => {
    expect(bytesToHex(keccak256(new Uint8Array()))).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470')
    expect(bytesToHex(keccak256(Uint8Array.of(0x80)))).toBe('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')
  })

  test('agrees with @noble/hashes on every length around the 136-byte rate', () => {
    for (let length = 0; length <= 3 * 136 + 1; length++) {
      const input = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 0xff)
      expect(keccak256(input)).toEqual(keccak_256(input))
    }
  })

  test('each digest is its own array: a later call does not overwrite an earlier result', () => {
    const first = keccak256(Uint8Array.of(1))
    const copy = first.slice()
    keccak256(Uint8Array.of(2))
    expect(first).toEqual(copy)
  })
})
