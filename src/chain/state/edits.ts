import { KECCAK256_NULL, KECCAK256_RLP, bytesToHex, setLengthLeft, unpadBytes } from '@ethereumjs/util'

import { keccak256 } from '../crypto/keccak.ts'
import { createStateDiff } from './types.ts'

import type { AccountRecord, StateDiff, StateReader } from './types.ts'
import type { Hex } from '../../hex.ts'

/**
 * A change the test-control methods make to state in place (anvil_setBalance and the like): given the state it
 * applies to, the writes it makes. The chain applies one edit to the head's state and again to the pending state,
 * each from its own values, so that a pending transaction's nonce survives a balance change.
 */
export type StateEdit = (state: StateReader) => StateDiff

const emptyAccount: AccountRecord = { nonce: 0n, balance: 0n, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_RLP }

/** Edits fields of one account; a missing account is created empty first. */
export function editAccount(address: Hex, change: (account: AccountRecord) => Partial<AccountRecord>): StateEdit {
  return (state) => {
    const account = state.account(address) ?? emptyAccount
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
    if (state.account(address) === undefined) diff.accounts.set(address, emptyAccount)
    const key = bytesToHex(setLengthLeft(slot, 32)) as Hex
    diff.storage.set(address, { cleared: false, slots: new Map([[key, unpadBytes(value)]]) })
    return diff
  }
}
