import { EMPTY, accountCodec, dropAfter, dropLast, lastAtOrBefore, packOld, record, slotCodec, valueAt } from './versions.ts'

import type { AccountRecord, StateDiff, StateReader } from './types.ts'
import type { AccountStorage, Codec, Versions } from './versions.ts'
import type { Hex } from '../../hex.ts'

/** Versions packed by compact() between two of its yields. */
const PACKED_PER_STEP = 2000

/** The whole history as plain maps, for another thread to start from (structured-cloneable). */
export type HistorySnapshot = {
  accounts: Map<Hex, Versions<AccountRecord | null>>
  storage: Map<Hex, AccountStorage>
  codes: Map<Hex, Uint8Array>
  journal: Written[]
}

/**
 * The keys one commit or edit wrote, in the journal a rewind walks back instead of every key of the state: the
 * strings the maps hold, not copies; `slots` as address and slot in turn.
 */
type Written = { block: number; accounts: readonly Hex[]; slots: readonly Hex[]; clears: readonly Hex[] }

const NONE: readonly Hex[] = Object.freeze([])

/** Keys as the journal keeps them: a copy as long as its contents (an array grown by push keeps room for 16 more). */
const kept = (keys: Hex[]): readonly Hex[] => (keys.length === 0 ? NONE : keys.slice())

/**
 * What an edit replaced at its block, key by key: the value written there before it, or `had: false` when that
 * block had written nothing to the key. Plain data, so a replica of the history can take the same undo.
 */
export type EditUndo = {
  accounts: { address: Hex; had: boolean; value: AccountRecord | null }[]
  slots: { address: Hex; slot: Hex; had: boolean; value: Uint8Array }[]
}

/**
 * The keys a rewind or an undo changed, so that the trie can be moved back by those alone: accounts, slots by
 * account, and the accounts whose storage a forgotten clear had wiped (all their slots are back).
 */
export type TouchedKeys = { accounts: Set<Hex>; slots: Map<Hex, Set<Hex>>; cleared: Set<Hex> }

export function createTouchedKeys(): TouchedKeys {
  return { accounts: new Set(), slots: new Map(), cleared: new Set() }
}

function touchSlot(touched: TouchedKeys | undefined, address: Hex, slot: Hex) {
  if (touched === undefined) return
  let slots = touched.slots.get(address)
  if (slots === undefined) touched.slots.set(address, (slots = new Set()))
  slots.add(slot)
}

/** An edit made at block `number`, and what takes it back: what a revert undoes. */
export type UndoneEdit = { number: bigint; undo: EditUndo }

/**
 * One change to a live chain's history: the writes of a sealed block, of a test-control edit, or of a revert. Every
 * change goes through `apply`, which hands it to the history's followers: the execution workers' replicas apply the
 * same change, and the answer cache forgets what it made stale (execution/calls.ts). So a kind of change added
 * here reaches every replica or fails to compile where they switch on it.
 */
export type HistoryChange =
  /** Block `number` was sealed with these writes (blocks come in ascending order); `hash` is for BLOCKHASH on a replica. */
  | { kind: 'block'; number: bigint; hash: Uint8Array; diff: StateDiff }
  /** A test-control method changed block `number`'s state in place, as if that block had written `diff`. */
  | { kind: 'edit'; number: bigint; diff: StateDiff }
  /**
   * A revert: the blocks after `number` are forgotten (-1: all of them), then the edits in `undo` are taken back,
   * newest first. Edits of the block reverted to are the newest versions of what they wrote once the later blocks
   * are gone, which is why the blocks go first.
   */
  | { kind: 'rewind'; number: bigint; undo: UndoneEdit[] }
  /**
   * The state beneath the history moved (a fork reset to another fork block, after a rewind of every block): what a
   * replica holds of the old one is another fork point's. It is applied by setUpstream, which has the new one.
   */
  | { kind: 'upstream' }

export type HistoryFollower = (change: HistoryChange) => void

export type StateHistory = {
  /** The state at the end of block `number`. */
  at(number: bigint): StateReader
  /**
   * Applies one change, then hands it to every follower, in the order the changes were applied. An edit answers
   * what takes it back (give it to a later rewind's `undo`); a rewind puts the keys it changed into `touched`.
   */
  apply(change: HistoryChange, touched?: TouchedKeys): EditUndo | undefined
  /**
   * Calls `follower` with every change applied from now on; returns what stops it. A follower that started from
   * `snapshot()` and applies each change to its own history holds the same state as this one.
   */
  follow(follower: HistoryFollower): () => void
  /**
   * Records the writes of block `number` while the history is loaded (from the store, or block 0 of a new chain),
   * in ascending order. It announces nothing, so it throws once something follows the history: a live chain's
   * blocks are applied as changes.
   */
  commit(number: bigint, diff: StateDiff): void
  /** The writes that take a state with `touched` changed back to the state at the end of block `number`. */
  restore(number: bigint, touched: TouchedKeys): StateDiff
  /**
   * Every live account at the end of block `number` (the newest block by default), with its storage: what the state
   * trie of that block is built from.
   */
  entries(number?: bigint): Iterable<[Hex, AccountRecord, Map<Hex, Uint8Array>]>
  /** The maps themselves, not a copy: post them (which copies) before the next change. */
  snapshot(): HistorySnapshot
  /**
   * Packs every version older than its key's newest, which `commit` leaves as it was given so that a load is not
   * slowed by it; it yields every few thousand versions, for the caller to give the event loop a turn. A live change
   * packs the version it follows itself.
   */
  compact(): Generator<void, void>
  /**
   * Puts another fork's upstream state beneath the history (a reset to another fork block), and tells the followers
   * (an `upstream` change): only once a rewind has forgotten every block, since what they wrote was written over the
   * other.
   */
  setUpstream(upstream: StateReader & { waits: true }): void
}

/**
 * Every sealed block's state, readable forever (nothing is pruned): one flat map per kind of key, each key
 * holding the values it took by block. A reader pinned to block N ignores everything written after N, so a
 * read never sees a half-sealed block.
 */
export function createStateHistory(from?: HistorySnapshot, upstream?: StateReader & { waits: true }): StateHistory {
  let below = upstream
  const accounts = from?.accounts ?? new Map<Hex, Versions<AccountRecord | null>>()
  const storage = from?.storage ?? new Map<Hex, AccountStorage>()
  const codes = from?.codes ?? new Map<Hex, Uint8Array>()
  /** Oldest first, block numbers never decreasing (edits are of the head). */
  const journal = from?.journal ?? []

  /** A key no block wrote: a fork's upstream value (state/miss.ts), else nothing. */
  const unwritten = (address: Hex, slot: Hex) => (below === undefined ? EMPTY : below.storage(address, slot))

  function readStorage(address: Hex, slot: Hex, block: number): Uint8Array {
    const account = storage.get(address)
    if (account === undefined) return unwritten(address, slot)
    const versions = account.slots.get(slot)
    const index = versions === undefined ? -1 : lastAtOrBefore(versions.blocks, block)
    const cleared = lastAtOrBefore(account.clears, block)
    if (index < 0) return cleared >= 0 ? EMPTY : unwritten(address, slot)
    // A clear in the same block happened before that block's writes (see StorageDiff).
    if (cleared >= 0 && account.clears[cleared]! > versions!.blocks[index]!) return EMPTY
    return valueAt(versions!, index, slotCodec)
  }

  function readAccount(address: Hex, block: number): AccountRecord | null | undefined {
    const versions = accounts.get(address)
    const index = versions === undefined ? -1 : lastAtOrBefore(versions.blocks, block)
    return index < 0 ? undefined : valueAt(versions!, index, accountCodec)
  }

  function storageOf(address: Hex): AccountStorage {
    let account = storage.get(address)
    if (account === undefined) storage.set(address, (account = { address, clears: [], slots: new Map() }))
    return account
  }

  /**
   * Records `value` at `block` in `map`'s versions of `key`; those of a new key are made with it, since an array made
   * empty and pushed to keeps room for 16 (most keys have one version). The key as the map holds it.
   */
  function put<T>(map: Map<Hex, Versions<T>>, key: Hex, block: number, value: T, codec: Codec<T> | undefined): Hex {
    const versions = map.get(key)
    if (versions === undefined) {
      map.set(key, { key, blocks: [block], values: [value] })
      return key
    }
    record(versions, block, value, codec)
    return versions.key
  }

  /**
   * Records what `diff` wrote as block `number`'s and journals it; with `pack`, the versions it follows are packed.
   * `had` is called with each key's versions before the write, for an edit's undo.
   */
  function write(
    number: bigint,
    diff: StateDiff,
    pack: boolean,
    had?: (versions: Versions<AccountRecord | null> | Versions<Uint8Array> | undefined, address: Hex, slot?: Hex) => void,
  ) {
    const block = Number(number)
    const written = { block, accounts: [] as Hex[], slots: [] as Hex[], clears: [] as Hex[] }
    for (const [hash, code] of diff.code) codes.set(hash, code)
    for (const [address, account] of diff.accounts) {
      had?.(accounts.get(address), address)
      written.accounts.push(put(accounts, address, block, account, pack ? accountCodec : undefined))
    }
    for (const [address, changes] of diff.storage) {
      const account = storageOf(address)
      // An edit clears no storage (see edit): a replica's rewind may hand it a diff that says so, and it did not.
      const cleared = changes.cleared && had === undefined
      if (cleared && account.clears.at(-1) !== block) account.clears.push(block)
      if (cleared) written.clears.push(account.address)
      for (const [slot, value] of changes.slots) {
        had?.(account.slots.get(slot), account.address, slot)
        written.slots.push(account.address, put(account.slots, slot, block, value, pack ? slotCodec : undefined))
      }
    }
    journal.push({ block, accounts: kept(written.accounts), slots: kept(written.slots), clears: kept(written.clears) })
  }

  /** A loaded block's writes are not packed one at a time (compact() packs them after the load); a live one's are. */
  const commit = (number: bigint, diff: StateDiff, pack: boolean) => write(number, diff, pack)

  /** Writes `diff` into block `number`'s own writes, as if that block had made them. The diff clears no storage. */
  function edit(number: bigint, diff: StateDiff): EditUndo {
    const block = Number(number)
    const undo: EditUndo = { accounts: [], slots: [] }
    write(number, diff, true, (versions, address, slot) => {
      const had = versions?.blocks.at(-1) === block
      if (slot === undefined) {
        const value = had ? valueAt(versions as Versions<AccountRecord | null>, versions!.blocks.length - 1, accountCodec) : null
        undo.accounts.push({ address, had, value })
      } else {
        const value = had ? valueAt(versions as Versions<Uint8Array>, versions!.blocks.length - 1, slotCodec) : EMPTY
        undo.slots.push({ address, slot, had, value })
      }
    })
    return undo
  }

  /** Takes an edit of block `number` back, if what it wrote is still that block's newest write. */
  function takeBack(number: bigint, undo: EditUndo, touched?: TouchedKeys) {
    const block = Number(number)
    // Newest first within the edit too, so a key it wrote twice ends with what it had before.
    for (const { address, slot, had, value } of undo.slots.toReversed()) {
      const slots = storage.get(address)?.slots
      const versions = slots?.get(slot)
      if (slots === undefined || versions === undefined || versions.blocks.at(-1) !== block) continue
      touchSlot(touched, address, slot)
      if (had) versions.values[versions.values.length - 1] = value
      else if (dropLast(versions, slotCodec)) slots.delete(slot)
    }
    for (const { address, had, value } of undo.accounts.toReversed()) {
      const versions = accounts.get(address)
      if (versions === undefined || versions.blocks.at(-1) !== block) continue
      touched?.accounts.add(address)
      if (had) versions.values[versions.values.length - 1] = value
      else if (dropLast(versions, accountCodec)) accounts.delete(address)
    }
  }

  /** Forgets every write of the blocks after `number`; the keys it changed go into `touched`. */
  function rewind(number: bigint, touched?: TouchedKeys) {
    const block = Number(number)
    // Only the keys the later blocks wrote can have versions to forget.
    while (journal.length > 0 && journal.at(-1)!.block > block) {
      const written = journal.pop()!
      for (const address of written.accounts) {
        const versions = accounts.get(address)
        if (versions === undefined || versions.blocks.at(-1)! <= block) continue
        touched?.accounts.add(address)
        if (dropAfter(versions, block, accountCodec)) accounts.delete(address)
      }
      const { slots } = written
      for (let i = 0; i < slots.length; i += 2) {
        const [address, slot] = [slots[i]!, slots[i + 1]!]
        const account = storage.get(address)
        const versions = account?.slots.get(slot)
        if (versions === undefined || versions.blocks.at(-1)! <= block) continue
        touchSlot(touched, address, slot)
        if (dropAfter(versions, block, slotCodec)) account!.slots.delete(slot)
      }
      for (const address of written.clears) {
        const account = storage.get(address)
        if (account === undefined || account.clears.length === 0 || account.clears.at(-1)! <= block) continue
        touched?.cleared.add(address)
        while (account.clears.length > 0 && account.clears.at(-1)! > block) account.clears.pop()
      }
      for (const address of new Set([...written.clears, ...slots.filter((_, i) => i % 2 === 0)])) {
        const account = storage.get(address)
        if (account !== undefined && account.slots.size === 0 && account.clears.length === 0) storage.delete(address)
      }
    }
  }

  const followers = new Set<HistoryFollower>()

  function apply(change: HistoryChange, touched?: TouchedKeys): EditUndo | undefined {
    let answer: EditUndo | undefined
    switch (change.kind) {
      case 'block':
        commit(change.number, change.diff, true)
        break
      case 'edit':
        answer = edit(change.number, change.diff)
        break
      case 'rewind':
        rewind(change.number, touched)
        for (const { number, undo } of change.undo) takeBack(number, undo, touched)
        break
      case 'upstream':
        break
    }
    for (const follower of followers) follower(change)
    return answer
  }

  return {
    at(number) {
      const block = Number(number)
      return {
        origin: { kind: 'block', number },
        waits: below !== undefined,
        account(address) {
          const account = readAccount(address, block)
          return account === undefined ? below?.account(address) : (account ?? undefined)
        },
        storage: (address, slot) => readStorage(address, slot, block),
        code: (codeHash) => codes.get(codeHash) ?? below?.code(codeHash),
      }
    },

    apply,

    follow(follower) {
      followers.add(follower)
      return () => followers.delete(follower)
    },

    commit(number, diff) {
      if (followers.size > 0) throw new Error('a block committed to a followed history would reach no follower: apply it as a change')
      commit(number, diff, false)
    },

    restore(number, touched) {
      const block = Number(number)
      const diff: StateDiff = { accounts: new Map(), storage: new Map(), code: new Map() }
      for (const address of touched.accounts) diff.accounts.set(address, readAccount(address, block) ?? null)
      for (const [address, slots] of touched.slots) {
        const written = new Map<Hex, Uint8Array>()
        for (const slot of slots) written.set(slot, readStorage(address, slot, block))
        diff.storage.set(address, { cleared: false, slots: written })
      }
      // A clear forgotten brings back every slot the account had: its storage trie is built again whole.
      for (const address of touched.cleared) {
        const written = new Map<Hex, Uint8Array>()
        for (const slot of storage.get(address)?.slots.keys() ?? []) {
          const value = readStorage(address, slot, block)
          if (value.length > 0) written.set(slot, value)
        }
        diff.storage.set(address, { cleared: true, slots: written })
      }
      return diff
    },

    snapshot: () => ({ accounts, storage, codes, journal }),

    *compact() {
      let packed = 0
      const step = function* (count: number) {
        packed += count
        if (packed < PACKED_PER_STEP) return
        packed = 0
        yield
      }
      // Live iterations: a key written between two steps is met or not, and packed by its own write if it is new.
      for (const versions of accounts.values()) yield* step(packOld(versions, accountCodec))
      for (const account of storage.values()) for (const versions of account.slots.values()) yield* step(packOld(versions, slotCodec))
    },

    setUpstream(upstream) {
      if (journal.length > 0) throw new Error('the upstream beneath a history changes only once every block is forgotten')
      below = upstream
      apply({ kind: 'upstream' })
    },

    *entries(number) {
      const block = number === undefined ? Number.MAX_SAFE_INTEGER : Number(number)
      for (const address of accounts.keys()) {
        const account = readAccount(address, block)
        if (account == null) continue
        const slots = new Map<Hex, Uint8Array>()
        for (const slot of storage.get(address)?.slots.keys() ?? []) {
          const value = readStorage(address, slot, block)
          if (value.length > 0) slots.set(slot, value)
        }
        yield [address, account, slots]
      }
    },
  }
}
