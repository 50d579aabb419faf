// A Merkle-Patricia trie (Yellow Paper, appendix D) of decoded, immutable nodes: an update copies the path it
// changes and shares the rest, and a node is encoded and hashed once, when a root is first asked for. @ethereumjs/mpt
// keeps each node encoded and decodes, re-encodes and hashes the path of every put: that was a third of a seal's time
// (2.3 of 9.4 s of CPU for 20,000 transfers). Keys are fixed-length (32-byte hashes), so no key ends at a branch and a
// branch holds no value. An old root stays valid after updates, which is how a preview is taken back.
import { KECCAK256_RLP } from '@ethereumjs/util'

import { keccak256 } from '../crypto/keccak.ts'

/**
 * Bytes a node keeps (its path's nibbles, a leaf's value, its hash) as a latin1 string, one character per byte. V8
 * keeps such a string in 16 bytes plus its length, where a Uint8Array takes about 200 more with its ArrayBuffer: in a
 * heap snapshot of a chain of 200,000 transactions, 150 of the 340 MB were the trie's arrays.
 */
type Bytes = string

type Leaf = { kind: 'leaf'; path: Bytes; value: Bytes; encoded?: Uint8Array; hash?: Bytes }
type Extension = { kind: 'extension'; path: Bytes; child: TrieNode; encoded?: Uint8Array; hash?: Bytes }
type Branch = { kind: 'branch'; children: (TrieNode | undefined)[]; encoded?: Uint8Array; hash?: Bytes }

/** A trie: its root node, undefined when empty. */
export type TrieNode = Leaf | Extension | Branch

const leaf = (path: Bytes, value: Bytes): Leaf => ({ kind: 'leaf', path, value })

/** Bytes `from` to `to` of an array as a latin1 string. */
function bytesOf(array: Uint8Array, from = 0, to = array.length): Bytes {
  return Buffer.from(array.buffer, array.byteOffset + from, to - from).toString('latin1')
}

/** A latin1 string's bytes, in an array of their own. */
function arrayOf(bytes: Bytes): Uint8Array {
  const array = new Uint8Array(bytes.length)
  for (let i = 0; i < bytes.length; i++) array[i] = bytes.charCodeAt(i)
  return array
}

/** An extension over `child`, merged with it where the child is a leaf or an extension itself. */
function extension(path: Bytes, child: TrieNode): TrieNode {
  if (path.length === 0) return child
  if (child.kind === 'branch') return { kind: 'extension', path, child }
  const joined = path + child.path
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

/** Nibbles `path` and `key` from `depth` on have in common. */
function shared(path: Bytes, key: Uint8Array, depth: number): number {
  let n = 0
  while (n < path.length && path.charCodeAt(n) === key[depth + n]) n++
  return n
}

/** The trie with `key` (its nibbles) set to `value`. */
export function insert(node: TrieNode | undefined, key: Uint8Array, value: Uint8Array, depth = 0): TrieNode {
  return put(node, key, bytesOf(value), depth)
}

function put(node: TrieNode | undefined, key: Uint8Array, value: Bytes, depth: number): TrieNode {
  if (node === undefined) return leaf(bytesOf(key, depth), value)
  if (node.kind === 'branch') {
    const children = node.children.slice()
    children[key[depth]!] = put(children[key[depth]!], key, value, depth + 1)
    return { kind: 'branch', children }
  }
  const common = shared(node.path, key, depth)
  if (node.kind === 'leaf' && common === node.path.length) return leaf(node.path, value)
  if (node.kind === 'extension' && common === node.path.length) {
    return { kind: 'extension', path: node.path, child: put(node.child, key, value, depth + common) }
  }
  // The paths part at nibble `common`: a branch there holds what was, and the new leaf.
  const children: (TrieNode | undefined)[] = new Array(16).fill(undefined)
  const rest = node.path.slice(common + 1)
  children[node.path.charCodeAt(common)] = node.kind === 'leaf' ? leaf(rest, node.value) : extension(rest, node.child)
  children[key[depth + common]!] = leaf(bytesOf(key, depth + common + 1), value)
  return extension(node.path.slice(0, common), { kind: 'branch', children })
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
  return only < 0 ? undefined : extension(String.fromCharCode(only), children[only]!)
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
    if (node.kind === 'leaf') return arrayOf(node.value)
    depth += node.path.length
    node = node.child
  }
  return undefined
}

/** The root hash of a trie: the empty trie's for none. */
export function rootHash(node: TrieNode | undefined): Uint8Array {
  return node === undefined ? KECCAK256_RLP : arrayOf(hashOf(node))
}

/** Hashes a node (and what it refers to), keeping the hash for its parent. */
export function hashNode(node: TrieNode): void {
  hashOf(node)
}

function hashOf(node: TrieNode): Bytes {
  if (node.hash === undefined) {
    node.hash = bytesOf(keccak256(encode(node)))
    // A node referred to by its hash needs its encoding no more (a proof encodes it again).
    if (node.encoded!.length >= 32) node.encoded = undefined
  }
  return node.hash
}

/** A node's RLP, written into one buffer sized first: a branch is 17 items, and a copy per item was most of a hash. */
export function encode(node: TrieNode): Uint8Array {
  if (node.encoded !== undefined) return node.encoded
  let encoded: Uint8Array
  if (node.kind === 'branch') {
    let length = 1
    for (const child of node.children) length += child === undefined ? 1 : referenceLength(child)
    encoded = new Uint8Array(prefixLength(length) + length)
    let at = writePrefix(encoded, 0, 0xc0, length)
    for (const child of node.children) at = child === undefined ? writeEmpty(encoded, at) : writeReference(encoded, at, child)
    writeEmpty(encoded, at)
  } else {
    const pathBytes = compactLength(node.path)
    const pathLength = pathBytes === 1 && compactFirstByte(node.path, node.kind === 'leaf') < 0x80 ? 1 : 1 + pathBytes
    const second = node.kind === 'leaf' ? stringLength(node.value) : referenceLength(node.child)
    const length = pathLength + second
    encoded = new Uint8Array(prefixLength(length) + length)
    let at = writePrefix(encoded, 0, 0xc0, length)
    if (pathLength > 1) encoded[at++] = 0x80 + pathBytes
    at = writeCompact(encoded, at, node.path, node.kind === 'leaf')
    if (node.kind === 'leaf') writeString(encoded, at, node.value)
    else writeReference(encoded, at, node.child)
  }
  node.encoded = encoded
  return encoded
}

/** How a parent refers to a child: the child itself under 32 bytes, else its hash (33 bytes as an RLP string). */
function referenceLength(child: TrieNode): number {
  if (child.hash !== undefined && child.encoded === undefined) return 33
  const length = encode(child).length
  return length < 32 ? length : 33
}

function writeReference(out: Uint8Array, at: number, child: TrieNode): number {
  if (child.hash === undefined || child.encoded !== undefined) {
    const encoded = encode(child)
    if (encoded.length < 32) {
      for (let i = 0; i < encoded.length; i++) out[at + i] = encoded[i]!
      return at + encoded.length
    }
  }
  out[at] = 0xa0
  return copy(out, at + 1, hashOf(child))
}

function copy(out: Uint8Array, at: number, bytes: Bytes): number {
  for (let i = 0; i < bytes.length; i++) out[at + i] = bytes.charCodeAt(i)
  return at + bytes.length
}

const writeEmpty = (out: Uint8Array, at: number): number => {
  out[at] = 0x80
  return at + 1
}

/** The RLP of a byte string (a slot's value in its trie). */
export function encodeString(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 1 && bytes[0]! < 0x80) return bytes.slice()
  const out = new Uint8Array(prefixLength(bytes.length) + bytes.length)
  out.set(bytes, writePrefix(out, 0, 0x80, bytes.length))
  return out
}

/** The length of a byte string's RLP. */
function stringLength(bytes: Bytes): number {
  return bytes.length === 1 && bytes.charCodeAt(0) < 0x80 ? 1 : prefixLength(bytes.length) + bytes.length
}

function writeString(out: Uint8Array, at: number, bytes: Bytes): number {
  if (bytes.length !== 1 || bytes.charCodeAt(0) >= 0x80) at = writePrefix(out, at, 0x80, bytes.length)
  return copy(out, at, bytes)
}

/** The bytes of an RLP prefix for an item of `length` bytes. */
const prefixLength = (length: number): number => (length < 56 ? 1 : 1 + byteCount(length))

function byteCount(value: number): number {
  let count = 0
  for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) count++
  return count
}

function writePrefix(out: Uint8Array, at: number, offset: number, length: number): number {
  if (length < 56) {
    out[at] = offset + length
    return at + 1
  }
  const count = byteCount(length)
  out[at] = offset + 55 + count
  for (let i = count, rest = length; i > 0; i--, rest = Math.floor(rest / 256)) out[at + i] = rest % 256
  return at + 1 + count
}

/** The compact path encoding (appendix C): a flag nibble for leaf and odd length, then the nibbles in pairs. */
const compactLength = (nibbles: Bytes): number => 1 + (nibbles.length >> 1)

function compactFirstByte(nibbles: Bytes, isLeaf: boolean): number {
  const odd = nibbles.length % 2
  return (((isLeaf ? 2 : 0) + odd) << 4) | (odd ? nibbles.charCodeAt(0) : 0)
}

function writeCompact(out: Uint8Array, at: number, nibbles: Bytes, isLeaf: boolean): number {
  out[at++] = compactFirstByte(nibbles, isLeaf)
  for (let i = nibbles.length % 2; i < nibbles.length; i += 2) out[at++] = (nibbles.charCodeAt(i) << 4) | nibbles.charCodeAt(i + 1)
  return at
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
 * The trie of `leaves` (keys as nibbles, 64 each; distinct), built at once: the leaves are split by their nibble at
 * each depth, so each node is made once, where inserting them one by one copies every path (and sorting 200,000 keys
 * cost more than the split).
 */
export function buildTrie(leaves: { key: Uint8Array; value: Uint8Array }[]): TrieNode | undefined {
  type Entry = (typeof leaves)[number]
  function build(group: Entry[], depth: number): TrieNode {
    const first = group[0]!.key
    if (group.length === 1) return leaf(bytesOf(first, depth), bytesOf(group[0]!.value))
    let common = depth
    while (common < first.length && shareNibble(group, common)) common++
    if (common === first.length) throw new Error('a trie was built from two leaves with the same key')
    if (common > depth) return { kind: 'extension', path: bytesOf(first, depth, common), child: build(group, common) }
    const split: (Entry[] | undefined)[] = new Array(16).fill(undefined)
    for (const entry of group) (split[entry.key[depth]!] ??= []).push(entry)
    return { kind: 'branch', children: split.map((part) => (part === undefined ? undefined : build(part, depth + 1))) }
  }
  return leaves.length === 0 ? undefined : build(leaves, 0)
}

function shareNibble(group: { key: Uint8Array }[], depth: number): boolean {
  const nibble = group[0]!.key[depth]
  for (let i = 1; i < group.length; i++) if (group[i]!.key[depth] !== nibble) return false
  return true
}
