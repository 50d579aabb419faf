/**
 * Flat state: accounts, storage slots and code as plain maps, keyed by lowercase 0x-hex strings. Merkle tries
 * exist only to compute a sealed block's state root (see trie.ts); execution never reads them.
 */
import { KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'

import type { Hex } from '../../hex.ts'

export type AccountRecord = {
  readonly nonce: bigint
  readonly balance: bigint
  readonly codeHash: Uint8Array
  /** The storage root as of the last sealed block that touched the account. Only sealed state keeps it exact. */
  readonly storageRoot: Uint8Array
}

/** An account that does not exist yet, as it reads once created: no nonce, balance, code or storage. */
export const EMPTY_ACCOUNT: AccountRecord = { nonce: 0n, balance: 0n, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_RLP }

/**
 * What a reader is made of, when it is one of the chain's own: a sealed block's state, or a diff over another reader.
 * A thread holding the same history can rebuild the reader from it (see execution/workerPool.ts).
 */
export type StateOrigin = { kind: 'block'; number: bigint } | { kind: 'overlay'; diff: StateDiff; parent: StateReader }

/** A read-only view of one consistent state: a sealed block, or the pending state after a flashblock. */
export type StateReader = {
  readonly origin?: StateOrigin
  /**
   * Some reads may have to wait (a fork's, for its upstream): they throw a StateMiss (miss.ts) rather than answer,
   * and whoever reads waits for it and reads again.
   */
  readonly waits?: boolean
  /** `undefined` when the account does not exist. */
  account(address: Hex): AccountRecord | undefined
  /** The slot's value with leading zeros stripped; empty when zero. */
  storage(address: Hex, slot: Hex): Uint8Array
  code(codeHash: Hex): Uint8Array | undefined
}

export type StorageDiff = {
  /** The account's storage was wiped (contract re-creation, EIP-6780 selfdestruct) before `slots` were written. */
  cleared: boolean
  readonly slots: Map<Hex, Uint8Array>
}

/** What a transaction, a flashblock or a block wrote. `null` marks a deleted account. */
export type StateDiff = {
  readonly accounts: Map<Hex, AccountRecord | null>
  readonly storage: Map<Hex, StorageDiff>
  readonly code: Map<Hex, Uint8Array>
}

export function createStateDiff(): StateDiff {
  return { accounts: new Map(), storage: new Map(), code: new Map() }
}

export function isEmptyDiff(diff: StateDiff): boolean {
  return diff.accounts.size === 0 && diff.storage.size === 0 && diff.code.size === 0
}

/** Folds `top` into `into`, as if `top`'s writes happened after `into`'s. */
export function mergeDiff(into: StateDiff, top: StateDiff): void {
  for (const [address, account] of top.accounts) into.accounts.set(address, account)
  for (const [hash, code] of top.code) into.code.set(hash, code)
  for (const [address, storage] of top.storage) {
    const below = into.storage.get(address)
    if (below === undefined || storage.cleared) {
      into.storage.set(address, { cleared: storage.cleared || (below?.cleared ?? false), slots: new Map(storage.slots) })
      continue
    }
    for (const [slot, value] of storage.slots) below.slots.set(slot, value)
  }
}
