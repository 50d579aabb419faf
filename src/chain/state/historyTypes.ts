// The types of a state history (history.ts): its interface, the changes it applies and hands its followers, and
// what a worker's replica starts from.
import type { NewestWrites, OlderState } from './older.ts'
import type { AccountRecord, StateDiff, StateReader } from './types.ts'
import type { AccountStorage, Versions } from './versions.ts'
import type { Hex } from '../../hex.ts'

/** The whole history as plain maps, for another thread to start from (structured-cloneable). */
export type HistorySnapshot = {
  accounts: Map<Hex, Versions<AccountRecord | null>>
  storage: Map<Hex, AccountStorage>
  codes: Map<Hex, Uint8Array>
  journal: Written[]
  /** Blocks before it are read from the store (`OlderState`); -Infinity when memory holds every block. */
  horizon: number
}

/**
 * The keys one commit or edit wrote, in the journal a rewind walks back instead of every key of the state: the
 * strings the maps hold, not copies; `slots` as address and slot in turn.
 */
export type Written = { block: number; accounts: readonly Hex[]; slots: readonly Hex[]; clears: readonly Hex[] }

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

export function touchSlot(touched: TouchedKeys | undefined, address: Hex, slot: Hex) {
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
   * are gone, which is why the blocks go first. Below the horizon, memory holds too little to step back: the history
   * is loaded again from the store's rows up to `number` (`reload`, which apply reads and hands its followers).
   */
  | { kind: 'rewind'; number: bigint; undo: UndoneEdit[]; reload?: NewestWrites }
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
  /**
   * Loads a store's state as of block `horizon`, each key's newest write (`commit`s them): blocks before the horizon
   * are read from `older` when a request names one. Only into a history that holds nothing yet.
   */
  load(newest: NewestWrites, horizon: number, older: OlderState): void
  /** What reads the blocks before the horizon; undefined while memory holds every block. */
  readonly older: OlderState | undefined
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
