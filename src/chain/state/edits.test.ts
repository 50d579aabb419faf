import { KECCAK256_NULL, KECCAK256_RLP, hexToBytes } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { readBack } from './edits.ts'
import { StateMiss } from './miss.ts'
import { createStateDiff } from './types.ts'

import type { AccountRecord, StateReader } from './types.ts'
import type { Hex } from '../../hex.ts'

const upstreamOwned = '0x00000000000000000000000000000000000000a1' as Hex
const neverSeen = '0x00000000000000000000000000000000000000b2' as Hex
const unfetched = '0x00000000000000000000000000000000000000c3' as Hex
const slot = `0x${'00'.repeat(31)}01` as Hex
const account: AccountRecord = { nonce: 4n, balance: 9n, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_RLP }

/** A fork's state beneath the history: the upstream's account and slot, and a key not fetched yet. */
const beneath: StateReader = {
  account(address) {
    if (address === unfetched) throw new StateMiss(`account ${address}`, Promise.resolve())
    return address === upstreamOwned ? account : undefined
  },
  storage: (address, key) => (address === upstreamOwned && key === slot ? hexToBytes('0x2a') : new Uint8Array()),
  code: () => undefined,
}

describe("a revert's writes as a replica applies them", () => {
  test('an account or slot with no version of the history is what the state beneath reads, not a deletion', () => {
    const writes = createStateDiff()
    const kept: AccountRecord = { ...account, balance: 1n }
    writes.accounts.set(upstreamOwned, null)
    writes.accounts.set(neverSeen, null)
    writes.accounts.set(unfetched, null)
    writes.accounts.set('0x00000000000000000000000000000000000000d4', kept)
    writes.storage.set(upstreamOwned, { cleared: false, slots: new Map([[slot, new Uint8Array()]]) })
    const read = readBack(writes, beneath)
    expect(Object.fromEntries(read.accounts)).toEqual({
      [upstreamOwned]: account,
      [neverSeen]: null,
      // Not readable without waiting: left as the history has it.
      [unfetched]: null,
      '0x00000000000000000000000000000000000000d4': kept,
    })
    expect(read.storage.get(upstreamOwned)).toEqual({ cleared: false, slots: new Map([[slot, hexToBytes('0x2a')]]) })
  })
})
