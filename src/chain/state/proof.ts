import { bytesToBigInt, bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util'

import { createStateTrie } from './trie.ts'

import type { StateHistory } from './history.ts'
import type { StateTrie } from './trie.ts'
import type { AccountRecord, StateDiff, StateReader } from './types.ts'
import type { Hex } from '../../hex.ts'
import type { AccountProof } from '../types.ts'

type Entry = [Hex, AccountRecord, Map<Hex, Uint8Array>]

/**
 * Every live account of one of the chain's own states, with its storage: a sealed block's from the history, and
 * the pending state's as the history's head under the flashblocks' diffs, oldest first.
 */
function entriesOf(state: StateReader, history: StateHistory): Entry[] {
  const diffs: StateDiff[] = []
  let reader = state
  while (reader.origin?.kind === 'overlay') {
    diffs.unshift(reader.origin.diff)
    reader = reader.origin.parent
  }
  if (reader.origin?.kind !== 'block') throw new Error('a state the chain did not make has no trie')
  const slotsOf = new Map<Hex, Map<Hex, Uint8Array>>()
  // The block's own records: a read of each again would read every account of a block before the history's horizon
  // from the store one at a time.
  const records = new Map<Hex, AccountRecord>()
  for (const [address, account, slots] of history.entries(reader.origin.number)) {
    slotsOf.set(address, slots)
    records.set(address, account)
  }
  for (const diff of diffs) {
    for (const [address, written] of diff.storage) {
      const slots = written.cleared ? new Map<Hex, Uint8Array>() : new Map(slotsOf.get(address))
      for (const [slot, value] of written.slots) {
        if (value.length === 0) slots.delete(slot)
        else slots.set(slot, value)
      }
      slotsOf.set(address, slots)
    }
    for (const address of diff.accounts.keys()) if (!slotsOf.has(address)) slotsOf.set(address, new Map())
  }
  const entries: Entry[] = []
  for (const [address, slots] of slotsOf) {
    const account = diffs.length === 0 ? records.get(address) : state.account(address)
    if (account !== undefined) entries.push([address, account, slots])
  }
  return entries
}

/** A state's own trie, built from its flat state: how blocks other than the head are proved. */
export function buildStateTrie(state: StateReader, history: StateHistory): Promise<StateTrie> {
  return createStateTrie(entriesOf(state, history))
}

const hex = (bytes: Uint8Array): Hex => bytesToHex(bytes) as Hex

/**
 * EIP-1186's answer for one account of `state`, proved by `trie`, whose root is that state's. As geth: an account
 * that does not exist has zero hashes and a proof of its absence, and its slots have no proof nodes.
 */
export async function proveAccount(trie: StateTrie, state: StateReader, address: Hex, slots: readonly Hex[]): Promise<AccountProof> {
  const proof = await trie.prove(address, slots)
  const account = state.account(address)
  const storageRoot = account === undefined ? undefined : trie.storageRoot(address)
  return {
    address,
    account:
      account === undefined
        ? undefined
        : {
            nonce: account.nonce,
            balance: account.balance,
            codeHash: hex(account.codeHash),
            storageHash: hex(storageRoot!),
          },
    accountProof: proof.account.map(hex),
    storageProof: slots.map((slot, i) => ({
      slot,
      value: bytesToBigInt(state.storage(address, slot)),
      proof: proof.storage === undefined ? [] : proof.storage[i]!.map(hex),
    })),
  }
}

/** Whether a trie holds exactly the state a header commits to. */
export function provesRoot(trie: StateTrie, stateRoot: Hex): boolean {
  return equalsBytes(trie.root(), hexToBytes(stateRoot))
}
