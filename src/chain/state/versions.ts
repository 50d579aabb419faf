// The versions a state history keeps of each key (history.ts), and how those no longer a key's newest are packed.
import { KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'

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

const EMPTY_ROOT = latin1(KECCAK256_RLP)
const NO_CODE = latin1(KECCAK256_NULL)

export const slotCodec: Codec<Uint8Array> = {
  pack: latin1,
  unpack: (packed) => (packed.length === 0 ? EMPTY : bytesOf(packed)),
}

/** A record as its storage root and code hash (32 bytes each), then its nonce and balance in hex, split by a space. */
export const accountCodec: Codec<AccountRecord | null> = {
  // A record whose hashes are not 32 bytes each (none the chain keeps) is left as it is.
  pack: (account) =>
    account === null || account.storageRoot.length !== 32 || account.codeHash.length !== 32
      ? account
      : `${account.storageRoot === KECCAK256_RLP ? EMPTY_ROOT : latin1(account.storageRoot)}${account.codeHash === KECCAK256_NULL ? NO_CODE : latin1(account.codeHash)}${account.nonce.toString(16)} ${account.balance.toString(16)}`,
  unpack(packed) {
    const [root, code, space] = [packed.slice(0, 32), packed.slice(32, 64), packed.indexOf(' ', 64)]
    return {
      nonce: BigInt(`0x${packed.slice(64, space)}`),
      balance: BigInt(`0x${packed.slice(space + 1)}`),
      storageRoot: root === EMPTY_ROOT ? KECCAK256_RLP : bytesOf(root),
      codeHash: code === NO_CODE ? KECCAK256_NULL : bytesOf(code),
    }
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

/** Packs every version but the newest; how many it packed. */
export function packOld<T>(versions: Versions<T>, codec: Codec<T>): number {
  let packed = 0
  for (let i = 0; i < versions.values.length - 1; i++) {
    const value = versions.values[i]!
    if (typeof value === 'string') continue
    versions.values[i] = codec.pack(value)
    packed++
  }
  return packed
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
