import { equalsBytes } from '@ethereumjs/util'

import { StateMiss } from './miss.ts'
import { withStorageRoots } from './trie.ts'
import { createStateDiff, mergeDiff } from './types.ts'

import type { AccountRecord, StateDiff, StateReader } from './types.ts'
import type { Hex } from '../../hex.ts'

/**
 * What a sealed block wrote, as the history and the store keep it: its parts' writes (flashblocks, then the rest) in
 * order, each account written with the storage root the seal computed (`storageRoots`, read back from `after`, the
 * state after the block), and without what it left as it was in `before`, the state before it.
 */
export function sealedWrites(parts: readonly StateDiff[], before: StateReader, after: StateReader, storageRoots: Map<Hex, Uint8Array>): StateDiff {
  const diff = createStateDiff()
  for (const part of parts) mergeDiff(diff, part)
  withStorageRoots(diff, after, storageRoots)
  dropUnchanged(diff, before)
  return diff
}

/**
 * Takes out of a block's writes what they left as it was before the block: a slot written with the value it held, an
 * account record written as it was (a system contract whose storage did not move), an account deleted that did not
 * exist (the system address, which every block's system calls touch and remove). An empty block wrote 5 accounts, 11
 * slots and a storage clear, of which 2 accounts and 2–3 slots changed; each row costs the database about 70 bytes.
 * What is left out reads as it did before the block, so no reader of the history or the store can tell. Call it once
 * the accounts carry their storage roots (withStorageRoots). A value `before` would have to fetch first (a fork's
 * upstream state not read yet; the block's own run read every key it wrote, so this is not expected) counts as
 * changed: comparing never waits for the upstream.
 */
export function dropUnchanged(diff: StateDiff, before: StateReader): void {
  for (const [address, storage] of diff.storage) {
    const existed = known(() => before.account(address) !== undefined) ?? true
    // A clear of an account that was not there wipes nothing; after a clear that did, zero is what a slot held.
    if (storage.cleared && !existed) storage.cleared = false
    for (const [slot, value] of storage.slots) {
      const held = storage.cleared ? EMPTY : known(() => before.storage(address, slot))
      if (held !== undefined && equalsBytes(held, value)) storage.slots.delete(slot)
    }
    if (!storage.cleared && storage.slots.size === 0) diff.storage.delete(address)
  }
  for (const [address, account] of diff.accounts) {
    const was = known(() => before.account(address) ?? null)
    if (was !== undefined && sameAccount(was, account) && !diff.storage.has(address)) diff.accounts.delete(address)
  }
}

const EMPTY = new Uint8Array(0)

/** `read`'s answer, or undefined where it would have to wait for a fetch. */
function known<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch (error) {
    if (error instanceof StateMiss) return undefined
    throw error
  }
}

function sameAccount(was: AccountRecord | null, now: AccountRecord | null): boolean {
  if (was === null || now === null) return was === now
  return (
    was.nonce === now.nonce && was.balance === now.balance && equalsBytes(was.codeHash, now.codeHash) && equalsBytes(was.storageRoot, now.storageRoot)
  )
}
