import { KECCAK256_NULL, bytesToHex, setLengthLeft, unpadBytes } from '@ethereumjs/util'

import { keccak256 } from '../crypto/keccak.ts'
import { StateMiss } from './miss.ts'
import { EMPTY_ACCOUNT, createStateDiff } from './types.ts'

import type { AccountRecord, StateDiff, StateReader } from './types.ts'
import type { Hex } from '../../hex.ts'

/**
 * A change the test-control methods make to state in place (anvil_setBalance and the like): given the state it
 * applies to, the writes it makes. The chain applies one edit to the head's state and again to the pending state,
 * each from its own values, so that a pending transaction's nonce survives a balance change.
 */
export type StateEdit = (state: StateReader) => StateDiff

/** Edits fields of one account; a missing account is created empty first. */
export function editAccount(address: Hex, change: (account: AccountRecord) => Partial<AccountRecord>): StateEdit {
  return (state) => {
    const account = state.account(address) ?? EMPTY_ACCOUNT
    const diff = createStateDiff()
    diff.accounts.set(address, { ...account, ...change(account) })
    return diff
  }
}

/** Replaces an account's code (`0x`: none), keeping its balance, nonce and storage, as anvil_setCode does. */
export function setCode(address: Hex, code: Uint8Array): StateEdit {
  return (state) => {
    const codeHash = code.length === 0 ? KECCAK256_NULL : keccak256(code)
    const diff = editAccount(address, () => ({ codeHash }))(state)
    if (code.length > 0) diff.code.set(bytesToHex(codeHash) as Hex, code)
    return diff
  }
}

/** Writes one storage slot (a 32-byte word); the account is created if there is none, so that the slot has a home. */
export function setStorage(address: Hex, slot: Uint8Array, value: Uint8Array): StateEdit {
  return (state) => {
    const diff = createStateDiff()
    if (state.account(address) === undefined) diff.accounts.set(address, EMPTY_ACCOUNT)
    const key = bytesToHex(setLengthLeft(slot, 32)) as Hex
    diff.storage.set(address, { cleared: false, slots: new Map([[key, unpadBytes(value)]]) })
    return diff
  }
}

/**
 * Writes that take a state back (a revert's), as a replica applies them: where the history holds no version of its
 * own at the block, the value is what `state` reads beneath it, on a fork the upstream's at the fork block, rather than
 * a deleted account or an empty slot. What `state` cannot read without waiting is left as it was; a revert reads only
 * keys that later blocks or edits touched, which were read before they were written.
 */
export function readBack(writes: StateDiff, state: StateReader): StateDiff {
  const read = <T>(value: () => T, otherwise: T): T => {
    try {
      return value()
    } catch (error) {
      if (error instanceof StateMiss) return otherwise
      throw error
    }
  }
  const diff = createStateDiff()
  for (const [address, account] of writes.accounts) {
    diff.accounts.set(address, account ?? read(() => state.account(address) ?? null, null))
  }
  for (const [address, { cleared, slots }] of writes.storage) {
    const values = new Map<Hex, Uint8Array>()
    for (const [slot, value] of slots)
      values.set(
        slot,
        read(() => state.storage(address, slot), value),
      )
    diff.storage.set(address, { cleared, slots: values })
  }
  for (const [hash, code] of writes.code) diff.code.set(hash, code)
  return diff
}
