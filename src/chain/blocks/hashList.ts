/** Block hashes in one growing buffer, 32 bytes each: a chain of a million blocks holds 32 MB and no object per block. */
export type HashList = {
  readonly length: number
  /** Hash `index` (a copy). */
  at(index: number): Uint8Array
  push(hash: Uint8Array): void
  /** Keeps the first `length` hashes. */
  truncate(length: number): void
  /** A copy of every hash, packed. */
  bytes(): Uint8Array
}

const HASH = 32

export function createHashList(packed?: Uint8Array): HashList {
  let buffer = new Uint8Array(Math.max(1024, (packed?.length ?? 0) * 2))
  let length = 0
  if (packed !== undefined) {
    buffer.set(packed)
    length = packed.length / HASH
  }
  return {
    get length() {
      return length
    },
    at: (index) => buffer.slice(index * HASH, index * HASH + HASH),
    push(hash) {
      if ((length + 1) * HASH > buffer.length) {
        const grown = new Uint8Array(buffer.length * 2)
        grown.set(buffer.subarray(0, length * HASH))
        buffer = grown
      }
      buffer.set(hash, length * HASH)
      length++
    },
    truncate(kept) {
      length = Math.min(length, kept)
    },
    bytes: () => buffer.slice(0, length * HASH),
  }
}
