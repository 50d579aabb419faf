import { KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { StateMiss } from './miss.ts'
import { createOverlay } from './overlay.ts'
import { dropUnchanged, sealedWrites } from './sealedWrites.ts'
import { createStateDiff } from './types.ts'

import type { AccountRecord, StateDiff, StateReader } from './types.ts'
import type { Hex } from '../../hex.ts'

const [a, b, c, d] = ['0xaa', '0xbb', '0xcc', '0xdd'].map((byte) => `0x${byte.slice(2).repeat(20)}` as Hex)
const slot = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex
const record = (balance: bigint, storageRoot = KECCAK256_RLP): AccountRecord => ({ nonce: 0n, balance, codeHash: KECCAK256_NULL, storageRoot })
const NOTHING: StateReader = { account: () => undefined, storage: () => new Uint8Array(0), code: () => undefined }

/** Before the block: a with 1 wei and slots 1 = 7, 2 = 0; b with 2 wei. */
function stateBefore(): StateReader {
  const diff = createStateDiff()
  diff.accounts.set(a, record(1n))
  diff.accounts.set(b, record(2n))
  diff.storage.set(a, { cleared: false, slots: new Map([[slot(1), Uint8Array.of(7)]]) })
  return createOverlay(diff, NOTHING)
}

describe('dropUnchanged', () => {
  test('drops slots written with the value they held, accounts written as they were, and deletions of accounts never there', () => {
    const diff: StateDiff = createStateDiff()
    diff.storage.set(a, {
      cleared: false,
      slots: new Map([
        [slot(1), Uint8Array.of(7)],
        [slot(2), new Uint8Array(0)],
        [slot(3), Uint8Array.of(9)],
      ]),
    })
    diff.accounts.set(a, record(1n))
    diff.accounts.set(b, record(3n))
    diff.accounts.set(c, null)
    diff.storage.set(c, { cleared: true, slots: new Map() })
    dropUnchanged(diff, stateBefore())
    expect([...diff.storage.get(a)!.slots.keys()]).toEqual([slot(3)])
    // a's record is as it was, but its storage changed: kept, as the seal sets its new storage root.
    expect([...diff.accounts.keys()]).toEqual([a, b])
    expect(diff.accounts.get(b)!.balance).toBe(3n)
    expect(diff.storage.has(c)).toBe(false)
  })

  test('a clear of an account that was there is kept, and after it only the slots it leaves non-zero', () => {
    const diff: StateDiff = createStateDiff()
    diff.storage.set(a, {
      cleared: true,
      slots: new Map([
        [slot(1), Uint8Array.of(7)],
        [slot(2), new Uint8Array(0)],
      ]),
    })
    diff.accounts.set(d, null)
    dropUnchanged(diff, stateBefore())
    expect(diff.storage.get(a)).toEqual({ cleared: true, slots: new Map([[slot(1), Uint8Array.of(7)]]) })
    expect(diff.accounts.size).toBe(0)
  })

  test('a value that would have to be fetched counts as changed', () => {
    const waiting: StateReader = {
      waits: true,
      account: () => {
        throw new StateMiss('account', Promise.resolve())
      },
      storage: () => {
        throw new StateMiss('storage', Promise.resolve())
      },
      code: () => undefined,
    }
    const diff: StateDiff = createStateDiff()
    diff.accounts.set(a, record(1n))
    diff.storage.set(a, { cleared: false, slots: new Map([[slot(1), Uint8Array.of(7)]]) })
    dropUnchanged(diff, waiting)
    expect(diff.accounts.get(a)).toEqual(record(1n))
    expect(diff.storage.get(a)!.slots.get(slot(1))).toEqual(Uint8Array.of(7))
  })
})

describe('sealedWrites', () => {
  test('merges the parts in order, sets the storage roots the seal computed, and drops what did not change', () => {
    const first = createStateDiff()
    first.accounts.set(b, record(5n))
    first.storage.set(a, { cleared: false, slots: new Map([[slot(3), Uint8Array.of(1)]]) })
    const second = createStateDiff()
    second.accounts.set(b, record(2n))
    second.storage.set(a, { cleared: false, slots: new Map([[slot(1), Uint8Array.of(7)]]) })
    const root = new Uint8Array(32).fill(9)
    const after = createOverlay(second, createOverlay(first, stateBefore()))
    const diff = sealedWrites([first, second], stateBefore(), after, new Map([[a, root]]))
    // b ended as it began; a's slot 1 was rewritten with its value; a's record carries its new root.
    expect([...diff.accounts.entries()]).toEqual([[a, record(1n, root)]])
    expect(diff.storage.get(a)!.slots).toEqual(new Map([[slot(3), Uint8Array.of(1)]]))
  })
})
