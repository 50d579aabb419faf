import type { AccountRecord, StateDiff, StateReader } from './types.ts'
import type { Hex } from '../../hex.ts'

const EMPTY = new Uint8Array(0)

/** The values one key took, by the block that wrote them, oldest first. */
type Versions<T> = { blocks: number[]; values: T[] }

type AccountStorage = { clears: number[]; slots: Map<Hex, Versions<Uint8Array>> }

/** Index of the last entry written at or before `block`, or -1. Reads at the head hit the first test. */
function lastAtOrBefore(blocks: number[], block: number): number {
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

function record<T>(versions: Versions<T> | undefined, block: number, value: T): Versions<T> {
  if (versions === undefined) return { blocks: [block], values: [value] }
  const last = versions.blocks.length - 1
  if (versions.blocks[last] === block) versions.values[last] = value
  else {
    versions.blocks.push(block)
    versions.values.push(value)
  }
  return versions
}

/** Drops the newest version; true when none is left. */
function dropLast<T>(versions: Versions<T>): boolean {
  versions.blocks.pop()
  versions.values.pop()
  return versions.blocks.length === 0
}

/** Drops the versions written after `block`; true when none is left. */
function dropAfter<T>(versions: Versions<T>, block: number): boolean {
  while (versions.blocks.length > 0 && versions.blocks.at(-1)! > block) dropLast(versions)
  return versions.blocks.length === 0
}

/** The whole history as plain maps, for another thread to start from (structured-cloneable). */
export type HistorySnapshot = {
  accounts: Map<Hex, Versions<AccountRecord | null>>
  storage: Map<Hex, AccountStorage>
  codes: Map<Hex, Uint8Array>
  journal: Written[]
}

/** The keys one commit or edit wrote, in the journal a rewind walks back instead of every key of the state. */
type Written = { block: number; accounts: Hex[]; slots: [Hex, Hex][]; clears: Hex[] }

function writtenBy(block: number, diff: StateDiff): Written {
  const written: Written = { block, accounts: [...diff.accounts.keys()], slots: [], clears: [] }
  for (const [address, storage] of diff.storage) {
    if (storage.cleared) written.clears.push(address)
    for (const slot of storage.slots.keys()) written.slots.push([address, slot])
  }
  return written
}

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
    return versions!.values[index]!
  }

  function commit(number: bigint, diff: StateDiff) {
    const block = Number(number)
    journal.push(writtenBy(block, diff))
    for (const [hash, code] of diff.code) codes.set(hash, code)
    for (const [address, account] of diff.accounts) {
      accounts.set(address, record(accounts.get(address), block, account))
    }
    for (const [address, written] of diff.storage) {
      let account = storage.get(address)
      if (account === undefined) storage.set(address, (account = { clears: [], slots: new Map() }))
      if (written.cleared && account.clears.at(-1) !== block) account.clears.push(block)
      for (const [slot, value] of written.slots) {
        account.slots.set(slot, record(account.slots.get(slot), block, value))
      }
    }
  }

  /** Writes `diff` into block `number`'s own writes, as if that block had made them. The diff clears no storage. */
  function edit(number: bigint, diff: StateDiff): EditUndo {
    const block = Number(number)
    journal.push(writtenBy(block, diff))
    const undo: EditUndo = { accounts: [], slots: [] }
    for (const [hash, code] of diff.code) codes.set(hash, code)
    for (const [address, account] of diff.accounts) {
      const versions = accounts.get(address)
      const had = versions?.blocks.at(-1) === block
      undo.accounts.push({ address, had, value: had ? versions!.values.at(-1)! : null })
      accounts.set(address, record(versions, block, account))
    }
    for (const [address, written] of diff.storage) {
      let account = storage.get(address)
      if (account === undefined) storage.set(address, (account = { clears: [], slots: new Map() }))
      for (const [slot, value] of written.slots) {
        const versions = account.slots.get(slot)
        const had = versions?.blocks.at(-1) === block
        undo.slots.push({ address, slot, had, value: had ? versions!.values.at(-1)! : EMPTY })
        account.slots.set(slot, record(versions, block, value))
      }
    }
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
      else if (dropLast(versions)) slots.delete(slot)
    }
    for (const { address, had, value } of undo.accounts.toReversed()) {
      const versions = accounts.get(address)
      if (versions === undefined || versions.blocks.at(-1) !== block) continue
      touched?.accounts.add(address)
      if (had) versions.values[versions.values.length - 1] = value
      else if (dropLast(versions)) accounts.delete(address)
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
        if (dropAfter(versions, block)) accounts.delete(address)
      }
      for (const [address, slot] of written.slots) {
        const account = storage.get(address)
        const versions = account?.slots.get(slot)
        if (versions === undefined || versions.blocks.at(-1)! <= block) continue
        touchSlot(touched, address, slot)
        if (dropAfter(versions, block)) account!.slots.delete(slot)
      }
      for (const address of written.clears) {
        const account = storage.get(address)
        if (account === undefined || account.clears.length === 0 || account.clears.at(-1)! <= block) continue
        touched?.cleared.add(address)
        while (account.clears.length > 0 && account.clears.at(-1)! > block) account.clears.pop()
      }
      for (const address of new Set([...written.clears, ...written.slots.map(([address]) => address)])) {
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
        commit(change.number, change.diff)
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
          const versions = accounts.get(address)
          const index = versions === undefined ? -1 : lastAtOrBefore(versions.blocks, block)
          if (index < 0) return below?.account(address)
          return versions!.values[index] ?? undefined
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
      commit(number, diff)
    },

    restore(number, touched) {
      const block = Number(number)
      const diff: StateDiff = { accounts: new Map(), storage: new Map(), code: new Map() }
      const at = (address: Hex) => {
        const versions = accounts.get(address)
        const index = versions === undefined ? -1 : lastAtOrBefore(versions.blocks, block)
        return index < 0 ? null : versions!.values[index]!
      }
      for (const address of touched.accounts) diff.accounts.set(address, at(address))
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

    setUpstream(upstream) {
      if (journal.length > 0) throw new Error('the upstream beneath a history changes only once every block is forgotten')
      below = upstream
      apply({ kind: 'upstream' })
    },

    *entries(number) {
      const block = number === undefined ? Number.MAX_SAFE_INTEGER : Number(number)
      for (const [address, versions] of accounts) {
        const index = lastAtOrBefore(versions.blocks, block)
        const account = index < 0 ? undefined : versions.values[index]
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
