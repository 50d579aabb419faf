// The versions a state history keeps of each key (history.ts), and how those no longer a key's newest are packed.
import { KECCAK256_NULL, KECCAK256_RLP, bigIntToUnpaddedBytes, equalsBytes } from '@ethereumjs/util'

import type { AccountRecord } from './types.ts'
import type { Hex } from '../../hex.ts'

export const EMPTY = new Uint8Array(0)

/**
 * A value that is no longer its key's newest, as a latin1 string: 16 bytes of V8's and one a byte, where an array
 * costs about 150, and its record several. A chain keeps every version (empty blocks write the system contracts'
 * slots and records at each one), so what an old version costs is what its memory grows by.
 */
type Packed = string

/** The values one key took, by the block that wrote them, oldest first; all but the newest packed. */
export type Versions<T> = { readonly key: Hex; blocks: number[]; values: (T | Packed)[] }

export type AccountStorage = { readonly address: Hex; clears: number[]; slots: Map<Hex, Versions<Uint8Array>> }

export type Codec<T> = { pack(value: T): T | Packed; unpack(packed: Packed): T }

/** A value's bytes as a latin1 string: values and hashes are at most 32 bytes, which apply takes as arguments. */
const latin1 = (bytes: Uint8Array): Packed => String.fromCharCode.apply(null, bytes as unknown as number[])

function bytesOf(packed: Packed): Uint8Array {
  const bytes = new Uint8Array(packed.length)
  for (let i = 0; i < packed.length; i++) bytes[i] = packed.charCodeAt(i)
  return bytes
}

export const slotCodec: Codec<Uint8Array> = {
  pack: latin1,
  unpack: (packed) => (packed.length === 0 ? EMPTY : bytesOf(packed)),
}

/** Flags of a packed record: its storage root is the empty trie's, its code hash the empty code's (neither is kept). */
const EMPTY_STORAGE = 1
const NO_CODE = 2

const isHash = (hash: Uint8Array, constant: Uint8Array) => hash === constant || equalsBytes(hash, constant)

/** A big-endian number from `length` latin1 characters of `packed` at `at`. */
function numberOf(packed: Packed, at: number, length: number): bigint {
  let hex = '0x0'
  for (let i = at; i < at + length; i++) hex += packed.charCodeAt(i).toString(16).padStart(2, '0')
  return BigInt(hex)
}

/**
 * A record as one flat string: its flags, its nonce's length, the nonce, the storage root and code hash unless a flag
 * says they are the constants, then the balance. Built from one array: a template literal would keep a rope of its
 * parts, larger than the record it packs.
 */
export const accountCodec: Codec<AccountRecord | null> = {
  pack(account) {
    // A record whose hashes are not 32 bytes each (none the chain keeps) is left as it is.
    if (account === null || account.storageRoot.length !== 32 || account.codeHash.length !== 32) return account
    const nonce = bigIntToUnpaddedBytes(account.nonce)
    const balance = bigIntToUnpaddedBytes(account.balance)
    const emptyStorage = isHash(account.storageRoot, KECCAK256_RLP)
    const noCode = isHash(account.codeHash, KECCAK256_NULL)
    const bytes = new Uint8Array(2 + nonce.length + (emptyStorage ? 0 : 32) + (noCode ? 0 : 32) + balance.length)
    bytes[0] = (emptyStorage ? EMPTY_STORAGE : 0) | (noCode ? NO_CODE : 0)
    bytes[1] = nonce.length
    let at = 2
    for (const part of [nonce, emptyStorage ? EMPTY : account.storageRoot, noCode ? EMPTY : account.codeHash, balance]) {
      bytes.set(part, at)
      at += part.length
    }
    return latin1(bytes)
  },
  unpack(packed) {
    const flags = packed.charCodeAt(0)
    const nonceLength = packed.charCodeAt(1)
    let at = 2 + nonceLength
    const hash = () => {
      at += 32
      return bytesOf(packed.slice(at - 32, at))
    }
    const nonce = numberOf(packed, 2, nonceLength)
    const storageRoot = flags & EMPTY_STORAGE ? KECCAK256_RLP : hash()
    const codeHash = flags & NO_CODE ? KECCAK256_NULL : hash()
    return { nonce, balance: numberOf(packed, at, packed.length - at), storageRoot, codeHash }
  },
}

/** Index of the last entry written at or before `block`, or -1. Reads at the head hit the first test. */
export function lastAtOrBefore(blocks: number[], block: number): number {
  let hi = blocks.length - 1
  if (hi < 0 || blocks[hi]! <= block) return hi
  let lo = 0
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (blocks[mid]! <= block) lo = mid
    else hi = mid - 1
  }
  return blocks[lo]! <= block ? lo : -1
}

export function valueAt<T>(versions: Versions<T>, index: number, codec: Codec<T>): T {
  const value = versions.values[index]!
  return typeof value === 'string' ? codec.unpack(value) : value
}

/** Records `value` as the key's version at `block`, the newest; with `codec`, the one it follows is packed. */
export function record<T>(versions: Versions<T>, block: number, value: T, codec?: Codec<T>): void {
  const last = versions.blocks.length - 1
  if (versions.blocks[last] === block) versions.values[last] = value
  else {
    if (codec !== undefined && last >= 0) {
      const previous = versions.values[last]!
      if (typeof previous !== 'string') versions.values[last] = codec.pack(previous)
    }
    versions.blocks.push(block)
    versions.values.push(value)
  }
}

/** The newest version decoded again, once those after it are dropped: reads at the head unpack nothing. */
export function unpackLast<T>(versions: Versions<T>, codec: Codec<T>): void {
  const last = versions.values.length - 1
  const value = versions.values[last]
  if (typeof value === 'string') versions.values[last] = codec.unpack(value)
}

/** Drops the newest version; true when none is left. */
export function dropLast<T>(versions: Versions<T>, codec: Codec<T>): boolean {
  versions.blocks.pop()
  versions.values.pop()
  unpackLast(versions, codec)
  return versions.blocks.length === 0
}

/** Drops the versions written after `block`; true when none is left. */
export function dropAfter<T>(versions: Versions<T>, block: number, codec: Codec<T>): boolean {
  while (versions.blocks.length > 0 && versions.blocks.at(-1)! > block) {
    versions.blocks.pop()
    versions.values.pop()
  }
  unpackLast(versions, codec)
  return versions.blocks.length === 0
}
