import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_RLP, bigIntToUnpaddedBytes } from '@ethereumjs/util'

import { TRIE_WRITES_PER_TURN, yieldToEventLoop } from '../../runtime/eventLoop.ts'
import { keccak256 } from '../crypto/keccak.ts'
import { buildTrie, encode, encodeString, hashNode, insert, nibblesOf, proof, remove, rootHash } from './mpt.ts'

import type { TrieNode } from './mpt.ts'
import type { AccountRecord, StateDiff, StateReader } from './types.ts'
import type { Hex } from '../../hex.ts'

export type StateRoots = {
  root: Uint8Array
  /** The storage root of every account whose storage the diff touched. */
  storageRoots: Map<Hex, Uint8Array>
}

/**
 * The Merkle-Patricia view of the head state. It exists only to compute state roots; execution reads flat maps.
 * Roots are computed when a block seals, and mid-block only where a pre-Byzantium receipt needs one.
 */
export type StateTrie = {
  /** Settles once the trie holds the state it was made from (see startStateTrie); it fails if the build failed. */
  readonly ready: Promise<void>
  /** Applies a sealed block's writes. `state` is the state after them. */
  apply(diff: StateDiff, state: StateReader): Promise<StateRoots>
  /** The roots the state would have after `diff`, leaving the trie at the head. */
  preview(diff: StateDiff, state: StateReader): Promise<StateRoots>
  /** The head's state root. */
  root(): Uint8Array
  /** The head's storage root of one account. */
  storageRoot(address: Hex): Uint8Array
  /** Starts over from a whole state (after the chain was rewound), as createStateTrie builds one. */
  rebuild(accounts: Iterable<[Hex, AccountRecord, Map<Hex, Uint8Array>]>): Promise<void>
  /**
   * EIP-1186 proofs against the head's root: the account's path in the account trie, and each slot's path in the
   * account's storage trie (undefined when it has no storage). Valid only between updates (see chain.ts).
   */
  prove(address: Hex, slots: readonly Hex[]): Promise<TrieProof>
}

export type TrieProof = { account: Uint8Array[]; storage: Uint8Array[][] | undefined }

/** Sealed account records carry their exact storage roots, as the trie computed them. */
export function withStorageRoots(diff: StateDiff, after: StateReader, storageRoots: Map<Hex, Uint8Array>): void {
  for (const [address, storageRoot] of storageRoots) {
    const account = after.account(address)
    if (account !== undefined) diff.accounts.set(address, { ...account, storageRoot })
  }
}

/** Where an address or slot is in its trie: the nibbles of its keccak (the state tries are "secure"). */
const pathOf = (key: Hex): Uint8Array => nibblesOf(keccak256(Buffer.from(key.slice(2), 'hex')))

/** Trie work (a key written, a node hashed) since the last turn of the event loop this module gave. */
let workSinceTurn = 0
/** Every piece of trie work this thread has done: what a test counts between turns of the event loop. */
export const trieWork = { count: 0 }

/**
 * Counts one piece of trie work, and gives the event loop a turn after TRIE_WRITES_PER_TURN of them: one budget for
 * every trie a seal writes, so that many small tries one after the other never add up to a long stretch.
 */
export function trieWorkDone(): Promise<void> | undefined {
  trieWork.count++
  if (++workSinceTurn < TRIE_WRITES_PER_TURN) return undefined
  workSinceTurn = 0
  return yieldToEventLoop()
}

/**
 * A trie's root: its new nodes hashed, children first, TRIE_WRITES_PER_TURN to a turn of the event loop. The root of
 * a block of thousands of transfers is tens of thousands of nodes, which in one piece would hold every request meanwhile.
 */
export async function hashInTurns(node: TrieNode | undefined): Promise<Uint8Array> {
  const pending: TrieNode[] = []
  const walk = (from: TrieNode) => {
    if (from.hash !== undefined) return
    if (from.kind === 'extension') walk(from.child)
    else if (from.kind === 'branch') for (const child of from.children) if (child !== undefined) walk(child)
    pending.push(from)
  }
  if (node !== undefined) walk(node)
  for (const next of pending) {
    // A node under 32 bytes is embedded in its parent: its encoding is all the parent needs, and it gets no hash.
    if (next === node || encode(next).length >= 32) hashNode(next)
    await trieWorkDone()
  }
  return rootHash(node)
}

export function encodeAccount(account: AccountRecord, storageRoot: Uint8Array): Uint8Array {
  return RLP.encode([bigIntToUnpaddedBytes(account.nonce), bigIntToUnpaddedBytes(account.balance), storageRoot, account.codeHash])
}

/** A trie built from a whole state, and ready when returned. */
export async function createStateTrie(accounts: Iterable<[Hex, AccountRecord, Map<Hex, Uint8Array>]> = []): Promise<StateTrie> {
  const trie = startStateTrie(accounts)
  await trie.ready
  return trie
}

/**
 * A trie returned at once, and built from `accounts` in turns of the event loop: a restart answers requests while it
 * builds (it was most of a restart). Every update and proof waits for the build, and `root()` throws before it.
 *
 * `accounts` is read as the build goes, so the state may change under it (a block sealed, a test-control edit):
 * each change is also applied to the trie, after the build, so a key the build read before a change is updated by the
 * change, and one it read after gets the same value twice. An account removed and written again during the build
 * would come twice; it is built once, with what it held when first read, and its change brings it up to date.
 */
export function startStateTrie(accounts: Iterable<[Hex, AccountRecord, Map<Hex, Uint8Array>]>): StateTrie {
  let accountTrie: TrieNode | undefined
  /** Every account's storage trie that holds a slot. */
  let storageTries = new Map<Hex, TrieNode>()
  let built = false

  async function fill(from: Iterable<[Hex, AccountRecord, Map<Hex, Uint8Array>]>) {
    const tries = new Map<Hex, TrieNode>()
    const leaves: { key: Uint8Array; value: Uint8Array }[] = []
    const read = new Set<Hex>()
    for (const [address, account, slots] of from) {
      if (read.has(address)) continue
      read.add(address)
      let storageRoot = KECCAK256_RLP
      if (slots.size > 0) {
        const trie = buildTrie(Array.from(slots, ([slot, value]) => ({ key: pathOf(slot), value: encodeString(value) })))!
        tries.set(address, trie)
        storageRoot = await hashInTurns(trie)
      }
      leaves.push({ key: pathOf(address), value: encodeAccount(account, storageRoot) })
      await trieWorkDone()
    }
    const root = buildTrie(leaves)
    await hashInTurns(root)
    accountTrie = root
    storageTries = tries
    built = true
  }
  let ready = fill(accounts)
  /** The trie once built; what reads it synchronously before then has not waited for `ready`. */
  const whenBuilt = () => {
    if (!built) throw new Error('the state trie is still being built: wait for its `ready`')
  }

  async function update(diff: StateDiff, state: StateReader, keep: boolean): Promise<StateRoots> {
    // The head this update starts from: one kept over another that ran meanwhile would lose the other's writes.
    const from = accountTrie
    const storageRoots = new Map<Hex, Uint8Array>()
    // The tries this diff changed; undefined for a storage emptied or an account gone. The old ones stay as they
    // were (mpt.ts shares nodes), so a preview is taken back by not keeping these.
    const changed = new Map<Hex, TrieNode | undefined>()
    const storageOf = (address: Hex) => (changed.has(address) ? changed.get(address) : storageTries.get(address))

    for (const [address, written] of diff.storage) {
      let trie = written.cleared ? undefined : storageOf(address)
      for (const [slot, value] of written.slots) {
        trie = value.length === 0 ? remove(trie, pathOf(slot)) : insert(trie, pathOf(slot), encodeString(value))
        await trieWorkDone()
      }
      changed.set(address, trie)
      storageRoots.set(address, await hashInTurns(trie))
    }

    let root = from
    const touched = new Set<Hex>([...diff.accounts.keys(), ...diff.storage.keys()])
    for (const address of touched) {
      const account = state.account(address)
      if (account === undefined) {
        root = remove(root, pathOf(address))
        changed.set(address, undefined)
      } else {
        const storageRoot = storageRoots.get(address) ?? rootHash(storageOf(address))
        root = insert(root, pathOf(address), encodeAccount(account, storageRoot))
      }
      await trieWorkDone()
    }
    const rootOfState = await hashInTurns(root)

    if (keep) {
      if (accountTrie !== from) throw new Error('the state trie changed while a block was applied to it: updates run one at a time')
      accountTrie = root
      for (const [address, trie] of changed) {
        if (trie === undefined) storageTries.delete(address)
        else storageTries.set(address, trie)
      }
    }
    return { root: rootOfState, storageRoots }
  }

  return {
    get ready() {
      return ready
    },
    async apply(diff, state) {
      await ready
      return update(diff, state, true)
    },
    async preview(diff, state) {
      await ready
      return update(diff, state, false)
    },
    root() {
      whenBuilt()
      return rootHash(accountTrie)
    },
    storageRoot(address) {
      whenBuilt()
      return rootHash(storageTries.get(address))
    },
    async rebuild(accounts) {
      // A build that failed is started over: a reset is how a node gets its trie back.
      await ready.catch(() => {})
      await fill(accounts)
      ready = Promise.resolve()
    },
    async prove(address, slots) {
      await ready
      const account = proof(accountTrie, pathOf(address))
      const trie = storageTries.get(address)
      if (trie === undefined) return { account, storage: undefined }
      return { account, storage: slots.map((slot) => proof(trie, pathOf(slot))) }
    },
  }
}
