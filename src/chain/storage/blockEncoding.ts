import { deflateRawSync, inflateRawSync } from 'node:zlib'

import { KECCAK256_RLP, KECCAK256_RLP_ARRAY, hexToBytes } from '@ethereumjs/util'

/**
 * How a block's RLP is kept in the store. An empty block's RLP is 616 bytes, most of them a header's empty parts: a
 * log bloom of 256 zero bytes, the empty trie root three times (transactions, receipts, withdrawals), the empty
 * ommers hash, the empty requests hash. Deflated with those parts as its dictionary it takes about 235 bytes: the
 * hashes the block made (its parent's, its state root, its randomness) and the numbers. A kept block is either its
 * RLP as it is (it starts with a list's byte, 0xc0 or above: every store written before this) or COMPRESSED followed
 * by the deflated RLP. Blocks past DEFLATED_UP_TO are kept as they are: their transactions' signatures and data do not
 * shrink, and deflating them would cost the seal time for nothing.
 */
const COMPRESSED = 0x00

/** Bytes of RLP up to which a block is deflated: its header and a few transactions. */
const DEFLATED_UP_TO = 8192

/** What an empty header repeats, which the deflated block points back to instead of holding. Never to change: a kept block needs it to be read. */
const DICTIONARY = Uint8Array.from([
  ...new Uint8Array(256),
  ...KECCAK256_RLP,
  ...KECCAK256_RLP_ARRAY,
  // EIP-7685's requests hash of a block without requests: sha256 of nothing.
  ...hexToBytes('0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
])

/** The bytes the store keeps for a block's RLP. */
export function encodeStoredBlock(rlp: Uint8Array): Uint8Array {
  // Bytes that begin as a deflated block would are deflated whatever their size, so that they read back as they were.
  const plain = rlp[0] !== COMPRESSED
  if (plain && rlp.length > DEFLATED_UP_TO) return rlp
  const deflated = deflateRawSync(rlp, { dictionary: DICTIONARY })
  if (plain && deflated.length + 1 >= rlp.length) return rlp
  const kept = new Uint8Array(deflated.length + 1)
  kept[0] = COMPRESSED
  kept.set(deflated, 1)
  return kept
}

/** A block's RLP from the bytes the store keeps. */
export function decodeStoredBlock(kept: Uint8Array): Uint8Array {
  if (kept[0] !== COMPRESSED) return kept
  return new Uint8Array(inflateRawSync(kept.subarray(1), { dictionary: DICTIONARY }))
}
