import { MerklePatriciaTrie, createMerkleProof } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_RLP, MapDB, ValueEncoding, bigIntToUnpaddedBytes, equalsBytes, hexToBytes } from '@ethereumjs/util'

import { TRIE_WRITES_PER_TURN, yieldToEventLoop } from '../../runtime/eventLoop.ts'
import { keccak256 } from '../crypto/keccak.ts'
import { buildTrie } from './trieBuilder.ts'

import type { TrieNodes } from './trieBuilder.ts'
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

/**
 * The nodes on a key's path, as geth's Prove gives them: the root, then every node its parent refers to by hash.
 * A node under 32 bytes is embedded in its parent (Yellow Paper, appendix D), so it is not a proof element of its own.
 */
async function proofOf(trie: MerklePatriciaTrie, key: Uint8Array): Promise<Uint8Array[]> {
  const nodes = await createMerkleProof(trie, key)
  return nodes.filter((node, i) => i === 0 || node.length >= 32)
}

/** Sealed account records carry their exact storage roots, as the trie computed them. */
export function withStorageRoots(diff: StateDiff, after: StateReader, storageRoots: Map<Hex, Uint8Array>): void {
  for (const [address, storageRoot] of storageRoots) {
    const account = after.account(address)
    if (account !== undefined) diff.accounts.set(address, { ...account, storageRoot })
  }
}

const trieOptions = { useKeyHashing: true, useKeyHashingFunction: keccak256, useNodePruning: true } as const

function createTrie(): MerklePatriciaTrie {
  return new MerklePatriciaTrie(trieOptions)
}

/** A trie of these leaves (keys and values as `put` takes them), built at once (trieBuilder.ts). */
function builtTrie(leaves: Iterable<[Uint8Array, Uint8Array]>): MerklePatriciaTrie {
  const nodes: TrieNodes = new Map()
  const hashed = Array.from(leaves, ([key, value]) => ({ key: keccak256(key), value }))
  const root = buildTrie(hashed, nodes)
  return new MerklePatriciaTrie({ ...trieOptions, db: new MapDB(nodes), valueEncoding: ValueEncoding.Bytes, root })
}

export function encodeAccount(account: AccountRecord, storageRoot: Uint8Array): Uint8Array {
  return RLP.encode([bigIntToUnpaddedBytes(account.nonce), bigIntToUnpaddedBytes(account.balance), storageRoot, account.codeHash])
}

export async function createStateTrie(accounts: Iterable<[Hex, AccountRecord, Map<Hex, Uint8Array>]> = []): Promise<StateTrie> {
  let accountTrie = createTrie()
  let storageTries = new Map<Hex, MerklePatriciaTrie>()

  async function fill(from: Iterable<[Hex, AccountRecord, Map<Hex, Uint8Array>]>) {
    const tries = new Map<Hex, MerklePatriciaTrie>()
    const accounts: [Uint8Array, Uint8Array][] = []
    for (const [address, account, slots] of from) {
      let storageRoot = KECCAK256_RLP
      if (slots.size > 0) {
        const trie = builtTrie(Array.from(slots, ([slot, value]) => [hexToBytes(slot), RLP.encode(value)]))
        tries.set(address, trie)
        storageRoot = trie.root()
      }
      accounts.push([hexToBytes(address), encodeAccount(account, storageRoot)])
      // A large state is built in steps, so that a rebuild after a revert never holds the event loop for long.
      if (accounts.length % TRIE_WRITES_PER_TURN === 0) await yieldToEventLoop()
    }
    accountTrie = builtTrie(accounts)
    storageTries = tries
  }
  await fill(accounts)

  async function update(diff: StateDiff, state: StateReader, keep: boolean): Promise<StateRoots> {
    const storageRoots = new Map<Hex, Uint8Array>()
    // Tries touched by a preview are rolled back afterwards; new or wiped ones are simply dropped.
    const replaced = new Map<Hex, MerklePatriciaTrie | undefined>()
    const checkpointed: MerklePatriciaTrie[] = [accountTrie]
    accountTrie.checkpoint()
    let writes = 0
    const wrote = () => (++writes % TRIE_WRITES_PER_TURN === 0 ? yieldToEventLoop() : undefined)

    for (const [address, written] of diff.storage) {
      let trie = storageTries.get(address)
      if (written.cleared || trie === undefined) {
        replaced.set(address, trie)
        trie = createTrie()
        storageTries.set(address, trie)
      } else if (!keep) {
        trie.checkpoint()
        checkpointed.push(trie)
      }
      for (const [slot, value] of written.slots) {
        if (value.length === 0) await trie.del(hexToBytes(slot))
        else await trie.put(hexToBytes(slot), RLP.encode(value))
        await wrote()
      }
      storageRoots.set(address, trie.root())
    }

    const touched = new Set<Hex>([...diff.accounts.keys(), ...diff.storage.keys()])
    for (const address of touched) {
      const account = state.account(address)
      if (account === undefined) {
        await accountTrie.del(hexToBytes(address))
        if (keep) storageTries.delete(address)
        continue
      }
      const storageRoot = storageRoots.get(address) ?? storageTries.get(address)?.root() ?? KECCAK256_RLP
      await accountTrie.put(hexToBytes(address), encodeAccount(account, storageRoot))
      await wrote()
    }
    const root = accountTrie.root()

    if (keep) {
      await accountTrie.commit()
    } else {
      for (const trie of checkpointed) await trie.revert()
      for (const [address, trie] of replaced) {
        if (trie === undefined) storageTries.delete(address)
        else storageTries.set(address, trie)
      }
    }
    return { root, storageRoots }
  }

  return {
    apply: (diff, state) => update(diff, state, true),
    preview: (diff, state) => update(diff, state, false),
    root: () => accountTrie.root(),
    storageRoot: (address) => storageTries.get(address)?.root() ?? KECCAK256_RLP,
    rebuild: fill,
    async prove(address, slots) {
      const account = await proofOf(accountTrie, hexToBytes(address))
      const trie = storageTries.get(address)
      if (trie === undefined || equalsBytes(trie.root(), KECCAK256_RLP)) return { account, storage: undefined }
      const storage: Uint8Array[][] = []
      for (const slot of slots) storage.push(await proofOf(trie, hexToBytes(slot)))
      return { account, storage }
    },
  }
}
