import { KECCAK256_NULL, KECCAK256_RLP, bytesToHex, equalsBytes, hexToBytes, setLengthLeft, unpadBytes } from '@ethereumjs/util'

import { keccak256 } from '../crypto/keccak.ts'
import { createStateDiff } from './types.ts'

import type { StateEdit } from './edits.ts'
import type { AccountRecord, StateReader } from './types.ts'
import type { Hex } from '../../hex.ts'

/** One account of a state dump, as anvil_dumpState writes it: storage by slot, both as 32-byte words. */
export type DumpedAccount = { nonce: bigint; balance: bigint; code: Hex; storage: Record<Hex, Hex> }

/** A whole state, every live account with its code and storage (anvil_dumpState, anvil_loadState). */
export type StateDump = { accounts: Record<Hex, DumpedAccount> }

/** Bytes as a 32-byte word in hex, as slots and values are written (a dump's, the flashblocks stream's). */
export const word = (bytes: Uint8Array) => bytesToHex(setLengthLeft(bytes, 32)) as Hex

/** The dump of a state: `accounts` lists every live account with its storage, `state` reads their code. */
export function dumpState(accounts: Iterable<[Hex, AccountRecord, Map<Hex, Uint8Array>]>, state: StateReader): StateDump {
  const dump: StateDump = { accounts: {} }
  for (const [address, account, slots] of accounts) {
    const code = equalsBytes(account.codeHash, KECCAK256_NULL)
      ? new Uint8Array()
      : (state.code(bytesToHex(account.codeHash) as Hex) ?? new Uint8Array())
    const storage: Record<Hex, Hex> = {}
    for (const [slot, value] of slots) storage[slot] = word(value)
    dump.accounts[address] = { nonce: account.nonce, balance: account.balance, code: bytesToHex(code) as Hex, storage }
  }
  return dump
}

/**
 * Loads a dump over a state, as anvil_loadState does: each account takes the dump's nonce, balance and code, and the
 * slots the dump lists; accounts and slots it does not list stay as they are.
 */
export function loadDump(dump: StateDump): StateEdit {
  return (state) => {
    const diff = createStateDiff()
    for (const [address, dumped] of Object.entries(dump.accounts) as [Hex, DumpedAccount][]) {
      const code = hexToBytes(dumped.code)
      const codeHash = code.length === 0 ? KECCAK256_NULL : keccak256(code)
      if (code.length > 0) diff.code.set(bytesToHex(codeHash) as Hex, code)
      const storageRoot = state.account(address)?.storageRoot ?? KECCAK256_RLP
      diff.accounts.set(address, { nonce: dumped.nonce, balance: dumped.balance, codeHash, storageRoot })
      const slots = new Map<Hex, Uint8Array>()
      for (const [slot, value] of Object.entries(dumped.storage)) slots.set(word(hexToBytes(slot as Hex)), unpadBytes(hexToBytes(value as Hex)))
      if (slots.size > 0) diff.storage.set(address, { cleared: false, slots })
    }
    return diff
  }
}
