import { touchSlot } from './historyTypes.ts'
import { EMPTY, accountCodec, dropAfter, dropLast, lastAtOrBefore, record, slotCodec, valueAt } from './versions.ts'

import type { EditUndo, HistoryChange, HistoryFollower, HistorySnapshot, StateHistory, TouchedKeys } from './historyTypes.ts'
import type { NewestWrites, OlderState } from './older.ts'
import type { AccountRecord, StateDiff, StateReader } from './types.ts'
import type { AccountStorage, Codec, Versions } from './versions.ts'
import type { Hex } from '../../hex.ts'

export { createTouchedKeys } from './historyTypes.ts'
export type { EditUndo, HistoryChange, HistoryFollower, HistorySnapshot, StateHistory, TouchedKeys, UndoneEdit } from './historyTypes.ts'

/**
 * Blocks a history loaded from a store holds every write of, behind the newest: older ones are read from the store.
 * The horizon moves every HORIZON_STEP blocks, so an idle chain's memory stays flat (each empty block's writes cost
 * about 650 bytes of heap), and reverts to a block within reach step back rather than reload.
 */
const KEPT_BLOCKS = 8192
const HORIZON_STEP = 1024

const NONE: readonly Hex[] = Object.freeze([])

/** Keys as the journal keeps them: a copy as long as its contents (an array grown by push keeps room for 16 more). */
const kept = (keys: Hex[]): readonly Hex[] => (keys.length === 0 ? NONE : keys.slice())

/**
 * Every sealed block's state, readable forever: one flat map per kind of key, each key holding the values it took by
 * block. A reader pinned to block N ignores everything written after N, so a read never sees a half-sealed block. A
 * history over a store holds each key's newest write up to its horizon (the head, when it is loaded) and every write
 * after, and the horizon moves on as blocks come; blocks before it are read from the store (older.ts).
 */
export function createStateHistory(from?: HistorySnapshot, upstream?: StateReader & { waits: true }, olderState?: OlderState): StateHistory {
  let below = upstream
  let older = olderState
  /** Reads of blocks before it go to `older`: memory holds each key's newest write up to it, and every one after. */
  let horizon = from?.horizon ?? Number.NEGATIVE_INFINITY
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
  function put<T>(map: Map<Hex, Versions<T>>, key: Hex, block: number, value: T, codec: Codec<T>): Hex {
    const versions = map.get(key)
    if (versions === undefined) {
      map.set(key, { key, blocks: [block], values: [value] })
      return key
    }
    record(versions, block, value, codec)
    return versions.key
  }

  /**
   * Records what `diff` wrote as block `number`'s and journals it; the versions it follows are packed. `had` is called
   * with each key's versions before the write, for an edit's undo.
   */
  function write(
    number: bigint,
    diff: StateDiff,
    had?: (versions: Versions<AccountRecord | null> | Versions<Uint8Array> | undefined, address: Hex, slot?: Hex) => void,
  ) {
    const block = Number(number)
    const written = { block, accounts: [] as Hex[], slots: [] as Hex[], clears: [] as Hex[] }
    for (const [hash, code] of diff.code) codes.set(hash, code)
    for (const [address, account] of diff.accounts) {
      had?.(accounts.get(address), address)
      written.accounts.push(put(accounts, address, block, account, accountCodec))
    }
    for (const [address, changes] of diff.storage) {
      const account = storageOf(address)
      // An edit clears no storage (see edit): a replica's rewind may hand it a diff that says so, and it did not.
      const cleared = changes.cleared && had === undefined
      if (cleared && account.clears.at(-1) !== block) account.clears.push(block)
      if (cleared) written.clears.push(account.address)
      for (const [slot, value] of changes.slots) {
        had?.(account.slots.get(slot), account.address, slot)
        written.slots.push(account.address, put(account.slots, slot, block, value, slotCodec))
      }
    }
    journal.push({ block, accounts: kept(written.accounts), slots: kept(written.slots), clears: kept(written.clears) })
  }

  /** Writes `diff` into block `number`'s own writes, as if that block had made them. The diff clears no storage. */
  function edit(number: bigint, diff: StateDiff): EditUndo {
    const block = Number(number)
    const undo: EditUndo = { accounts: [], slots: [] }
    write(number, diff, (versions, address, slot) => {
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

  /**
   * A rewind to block `number` before the horizon: every key is loaded again as of that block, which becomes the
   * horizon, and every key is touched (the trie moves back by all of them).
   */
  function reload(number: bigint, newest: NewestWrites, touched?: TouchedKeys) {
    // Those held before and after: a slot cleared before the horizon was not held, and may be back.
    const touchAll = () => {
      for (const address of accounts.keys()) touched?.accounts.add(address)
      for (const [address, account] of storage) for (const slot of account.slots.keys()) touchSlot(touched, address, slot)
    }
    touchAll()
    accounts.clear()
    storage.clear()
    for (const [block, diff] of newest) write(BigInt(block), diff)
    touchAll()
    // Only rewinds read the journal, and one to a block before the horizon reloads rather than steps back.
    journal.length = 0
    horizon = Number(number)
    older?.forget()
  }

  /**
   * Forgets what memory holds of the blocks before `to`, which the store holds too: each key keeps its newest write up
   * to `to` and every one after, and the journal (read only by rewinds, and one before the horizon reloads) its
   * entries after `to`.
   */
  function moveHorizon(to: number) {
    const forget = (versions: Versions<unknown>) => {
      const keep = lastAtOrBefore(versions.blocks, to)
      if (keep <= 0) return
      versions.blocks.splice(0, keep)
      versions.values.splice(0, keep)
    }
    for (const versions of accounts.values()) forget(versions)
    for (const account of storage.values()) {
      for (const versions of account.slots.values()) forget(versions)
      const cleared = lastAtOrBefore(account.clears, to)
      if (cleared > 0) account.clears.splice(0, cleared)
    }
    let entries = 0
    while (entries < journal.length && journal[entries]!.block <= to) entries++
    journal.splice(0, entries)
    horizon = to
    // What it kept of a key's rows was read before the blocks up to the new horizon were all written.
    older?.forget()
  }

  /** The state at the end of block `number`, before the horizon: the store's rows, as `older` reads them. */
  function olderAt(number: bigint): StateReader {
    const block = Number(number)
    const source = older!
    // Memory holds each key's newest write up to the horizon: a key whose first write there is at or before `block`
    // was not written between, and memory answers for it, as for a key it does not hold (never written). Only a key
    // written between `block` and the horizon is the store's to answer.
    return {
      origin: { kind: 'block', number },
      waits: below !== undefined || source.waits,
      account(address) {
        const first = accounts.get(address)?.blocks[0]
        const account = first === undefined || first <= block ? readAccount(address, block) : source.account(address, block)
        return account === undefined ? below?.account(address) : (account ?? undefined)
      },
      storage(address, slot) {
        const account = storage.get(address)
        const first = account?.slots.get(slot)?.blocks[0]
        const cleared = account?.clears[0]
        if ((first === undefined || first <= block) && (cleared === undefined || cleared <= block)) return readStorage(address, slot, block)
        return source.storage(address, slot, block) ?? unwritten(address, slot)
      },
      code: (codeHash) => codes.get(codeHash) ?? below?.code(codeHash),
    }
  }

  const followers = new Set<HistoryFollower>()

  function apply(change: HistoryChange, touched?: TouchedKeys): EditUndo | undefined {
    let answer: EditUndo | undefined
    switch (change.kind) {
      case 'block':
        write(change.number, change.diff)
        // The same on every replica, which holds the same horizon: no change of its own is needed.
        if (Number.isFinite(horizon) && Number(change.number) - horizon >= KEPT_BLOCKS + HORIZON_STEP)
          moveHorizon(Number(change.number) - KEPT_BLOCKS)
        break
      case 'edit':
        answer = edit(change.number, change.diff)
        break
      case 'rewind':
        if (Number(change.number) < horizon) {
          // The followers load the same rows: a worker has no store to read them from.
          change = { ...change, reload: change.reload ?? older!.newest(Number(change.number)) }
          reload(change.number, change.reload!, touched)
        } else rewind(change.number, touched)
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
      if (block < horizon) return olderAt(number)
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
      write(number, diff)
    },

    get older() {
      return older
    },

    load(newest, at, source) {
      if (accounts.size > 0 || storage.size > 0 || journal.length > 0) throw new Error('a history loads only while it holds nothing')
      for (const [block, diff] of newest) write(BigInt(block), diff)
      journal.length = 0
      horizon = at
      older = source
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

    snapshot: () => ({ accounts, storage, codes, journal, horizon }),

    setUpstream(upstream) {
      if (journal.length > 0) throw new Error('the upstream beneath a history changes only once every block is forgotten')
      below = upstream
      apply({ kind: 'upstream' })
    },

    *entries(number) {
      const block = number === undefined ? Number.MAX_SAFE_INTEGER : Number(number)
      if (block < horizon) {
        const old = createStateHistory(undefined, below)
        for (const [written, diff] of older!.newest(block)) old.commit(BigInt(written), diff)
        return yield* old.entries(number)
      }
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
