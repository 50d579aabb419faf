// A Merkle-Patricia trie (Yellow Paper, appendix D) of decoded, immutable nodes: an update copies the path it
// changes and shares the rest, and a node is encoded and hashed once, when a root is first asked for. @ethereumjs/mpt
// keeps each node encoded and decodes, re-encodes and hashes the path of every put: that was a third of a seal's time
// (2.3 of 9.4 s of CPU for 20,000 transfers). Keys are fixed-length (32-byte hashes), so no key ends at a branch and a
// branch holds no value. An old root stays valid after updates, which is how a preview is taken back.
import { KECCAK256_RLP } from '@ethereumjs/util'

import { keccak256 } from '../crypto/keccak.ts'

type Leaf = { kind: 'leaf'; path: Uint8Array; value: Uint8Array; encoded?: Uint8Array; hash?: Uint8Array }
type Extension = { kind: 'extension'; path: Uint8Array; child: TrieNode; encoded?: Uint8Array; hash?: Uint8Array }
type Branch = { kind: 'branch'; children: (TrieNode | undefined)[]; encoded?: Uint8Array; hash?: Uint8Array }

/** A trie: its root node, undefined when empty. */
export type TrieNode = Leaf | Extension | Branch

const leaf = (path: Uint8Array, value: Uint8Array): Leaf => ({ kind: 'leaf', path, value })

/** An extension over `child`, merged with it where the child is a leaf or an extension itself. */
function extension(path: Uint8Array, child: TrieNode): TrieNode {
  if (path.length === 0) return child
  if (child.kind === 'branch') return { kind: 'extension', path, child }
  const joined = concat(path, child.path)
  return child.kind === 'leaf' ? leaf(joined, child.value) : { kind: 'extension', path: joined, child: child.child }
}

export function nibblesOf(key: Uint8Array): Uint8Array {
  const nibbles = new Uint8Array(key.length * 2)
  for (let i = 0; i < key.length; i++) {
    nibbles[2 * i] = key[i]! >> 4
    nibbles[2 * i + 1] = key[i]! & 0x0f
  }
  return nibbles
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

/** Nibbles `path` and `key` from `depth` on have in common. */
function shared(path: Uint8Array, key: Uint8Array, depth: number): number {
  let n = 0
  while (n < path.length && path[n] === key[depth + n]) n++
  return n
}

/** The trie with `key` (its nibbles) set to `value`. */
export function insert(node: TrieNode | undefined, key: Uint8Array, value: Uint8Array, depth = 0): TrieNode {
  if (node === undefined) return leaf(key.subarray(depth), value)
  if (node.kind === 'branch') {
    const children = node.children.slice()
    children[key[depth]!] = insert(children[key[depth]!], key, value, depth + 1)
    return { kind: 'branch', children }
  }
  const common = shared(node.path, key, depth)
  if (node.kind === 'leaf' && common === node.path.length) return leaf(node.path, value)
  if (node.kind === 'extension' && common === node.path.length) {
    return { kind: 'extension', path: node.path, child: insert(node.child, key, value, depth + common) }
  }
  // The paths part at nibble `common`: a branch there holds what was, and the new leaf.
  const children: (TrieNode | undefined)[] = new Array(16).fill(undefined)
  const rest = node.path.subarray(common + 1)
  children[node.path[common]!] = node.kind === 'leaf' ? leaf(rest, node.value) : extension(rest, node.child)
  children[key[depth + common]!] = leaf(key.subarray(depth + common + 1), value)
  return extension(node.path.subarray(0, common), { kind: 'branch', children })
}

/** The trie without `key` (its nibbles); the same node when it does not hold the key. */
export function remove(node: TrieNode | undefined, key: Uint8Array, depth = 0): TrieNode | undefined {
  if (node === undefined) return undefined
  if (node.kind === 'leaf') return shared(node.path, key, depth) === node.path.length ? undefined : node
  if (node.kind === 'extension') {
    if (shared(node.path, key, depth) !== node.path.length) return node
    const child = remove(node.child, key, depth + node.path.length)
    if (child === node.child) return node
    return child === undefined ? undefined : extension(node.path, child)
  }
  const at = key[depth]!
  const child = remove(node.children[at], key, depth + 1)
  if (child === node.children[at]) return node
  const children = node.children.slice()
  children[at] = child
  let only = -1
  for (let i = 0; i < 16; i++) {
    if (children[i] === undefined) continue
    if (only >= 0) return { kind: 'branch', children }
    only = i
  }
  // One child left: the branch becomes an extension of one nibble toward it.
  return only < 0 ? undefined : extension(Uint8Array.of(only), children[only]!)
}

/** The value at `key` (its nibbles), or undefined. */
export function lookup(node: TrieNode | undefined, key: Uint8Array, depth = 0): Uint8Array | undefined {
  while (node !== undefined) {
    if (node.kind === 'branch') {
      node = node.children[key[depth]!]
      depth++
      continue
    }
    if (shared(node.path, key, depth) !== node.path.length) return undefined
    if (node.kind === 'leaf') return node.value
    depth += node.path.length
    node = node.child
  }
  return undefined
}

/** The root hash of a trie: the empty trie's for none. */
export function rootHash(node: TrieNode | undefined): Uint8Array {
  return node === undefined ? KECCAK256_RLP : hashOf(node)
}

function hashOf(node: TrieNode): Uint8Array {
  if (node.hash === undefined) {
    node.hash = keccak256(encode(node))
    // A node referred to by its hash needs its encoding no more (a proof encodes it again).
    if (node.encoded!.length >= 32) node.encoded = undefined
  }
  return node.hash
}

/** A node's RLP. */
export function encode(node: TrieNode): Uint8Array {
  if (node.encoded !== undefined) return node.encoded
  let encoded: Uint8Array
  if (node.kind === 'leaf') encoded = list([string(hexPrefix(node.path, true)), string(node.value)])
  else if (node.kind === 'extension') encoded = list([string(hexPrefix(node.path, false)), reference(node.child)])
  else encoded = list([...node.children.map((child) => (child === undefined ? EMPTY_STRING : reference(child))), EMPTY_STRING])
  node.encoded = encoded
  return encoded
}

/** How a parent refers to a child: the child itself under 32 bytes, else its hash. */
function reference(child: TrieNode): Uint8Array {
  if (child.hash !== undefined && child.encoded === undefined) return string(child.hash)
  const encoded = encode(child)
  return encoded.length < 32 ? encoded : string(hashOf(child))
}

/**
 * The nodes on a key's path as geth's Prove gives them (EIP-1186): the root, then every node its parent refers to by
 * hash. A node under 32 bytes is embedded in its parent, not an element of its own.
 */
export function proof(node: TrieNode | undefined, key: Uint8Array): Uint8Array[] {
  const nodes: Uint8Array[] = []
  let depth = 0
  while (node !== undefined) {
    const encoded = node.encoded ?? encodeAgain(node)
    if (nodes.length === 0 || encoded.length >= 32) nodes.push(encoded)
    if (node.kind === 'branch') {
      node = node.children[key[depth]!]
      depth++
    } else if (node.kind === 'extension' && shared(node.path, key, depth) === node.path.length) {
      depth += node.path.length
      node = node.child
    } else break
  }
  return nodes
}

/** A hashed node's encoding, made again without keeping it. */
function encodeAgain(node: TrieNode): Uint8Array {
  const { hash } = node
  node.hash = undefined
  const encoded = encode(node)
  node.encoded = undefined
  node.hash = hash
  return encoded
}

/**
 * The trie of `leaves` (keys as nibbles, 64 each; distinct), built from the sorted keys at once: each node made once,
 * where inserting them one by one copies every path.
 */
export function buildTrie(leaves: { key: Uint8Array; value: Uint8Array }[]): TrieNode | undefined {
  if (leaves.length === 0) return undefined
  const sorted = leaves.toSorted((a, b) => compare(a.key, b.key))
  function build(lo: number, hi: number, depth: number): TrieNode {
    const first = sorted[lo]!.key
    if (hi - lo === 1) return leaf(first.subarray(depth), sorted[lo]!.value)
    // Sorted keys: what the first and the last share, every key between them shares.
    const last = sorted[hi - 1]!.key
    let common = depth
    while (common < first.length && first[common] === last[common]) common++
    if (common === first.length) throw new Error('a trie was built from two leaves with the same key')
    if (common > depth) return { kind: 'extension', path: first.subarray(depth, common), child: build(lo, hi, common) }
    const children: (TrieNode | undefined)[] = new Array(16).fill(undefined)
    let at = lo
    while (at < hi) {
      const nibble = sorted[at]!.key[depth]!
      let end = at + 1
      while (end < hi && sorted[end]!.key[depth] === nibble) end++
      children[nibble] = build(at, end, depth + 1)
      at = end
    }
    return { kind: 'branch', children }
  }
  return build(0, sorted.length, 0)
}

function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return a.length - b.length
}

const EMPTY_STRING = Uint8Array.of(0x80)

/** The compact path encoding (appendix C): a flag nibble for leaf and odd length, then the nibbles in pairs. */
function hexPrefix(nibbles: Uint8Array, isLeaf: boolean): Uint8Array {
  const odd = nibbles.length % 2
  const bytes = new Uint8Array(1 + (nibbles.length - odd) / 2)
  bytes[0] = (((isLeaf ? 2 : 0) + odd) << 4) | (odd ? nibbles[0]! : 0)
  for (let i = odd, at = 1; i < nibbles.length; i += 2, at++) bytes[at] = (nibbles[i]! << 4) | nibbles[i + 1]!
  return bytes
}

/** The RLP of a byte string. */
function string(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 1 && bytes[0]! < 0x80) return bytes
  return withPrefix(0x80, bytes.length, [bytes])
}

/** The RLP of a list of items already encoded. */
function list(items: Uint8Array[]): Uint8Array {
  let length = 0
  for (const item of items) length += item.length
  return withPrefix(0xc0, length, items)
}

function withPrefix(offset: number, length: number, parts: Uint8Array[]): Uint8Array {
  const lengthBytes: number[] = []
  if (length >= 56) for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) lengthBytes.unshift(rest % 256)
  const head = length < 56 ? [offset + length] : [offset + 55 + lengthBytes.length, ...lengthBytes]
  const out = new Uint8Array(head.length + length)
  out.set(head)
  let at = head.length
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}
