import { describe, expect, test } from 'vitest'

import { KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'

import { createStateHistory } from './history.ts'
import { createOverlay } from './overlay.ts'
import { createStateDiff } from './types.ts'

import type { Hex } from '../../hex.ts'

const alice = '0x00000000000000000000000000000000000a11ce' as Hex
const slot = `0x${'00'.repeat(31)}01` as Hex
const account = (balance: bigint) => ({ nonce: 0n, balance, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_RLP })

function diffWith(build: (diff: ReturnType<typeof createStateDiff>) => void) {
  const diff = createStateDiff()
  build(diff)
  return diff
}

describe('state history', () => {
  test('every block reads the values of its own time', () => {
    const history = createStateHistory()
    history.commit(
      0n,
      diffWith((d) => d.accounts.set(alice, account(1n))),
    )
    history.commit(
      3n,
      diffWith((d) => d.accounts.set(alice, account(3n))),
    )
    expect(history.at(0n).account(alice)?.balance).toBe(1n)
    expect(history.at(2n).account(alice)?.balance).toBe(1n)
    expect(history.at(3n).account(alice)?.balance).toBe(3n)
    expect(history.at(9n).account(alice)?.balance).toBe(3n)
  })

  test('a deleted account is gone from that block on', () => {
    const history = createStateHistory()
    history.commit(
      0n,
      diffWith((d) => d.accounts.set(alice, account(1n))),
    )
    history.commit(
      1n,
      diffWith((d) => d.accounts.set(alice, null)),
    )
    expect(history.at(0n).account(alice)).toBeDefined()
    expect(history.at(1n).account(alice)).toBeUndefined()
  })

  test('a storage clear hides older slots but not writes of the same block', () => {
    const history = createStateHistory()
    const other = `0x${'00'.repeat(31)}02` as Hex
    history.commit(
      0n,
      diffWith((d) =>
        d.storage.set(alice, {
          cleared: false,
          slots: new Map([
            [slot, Uint8Array.of(7)],
            [other, Uint8Array.of(8)],
          ]),
        }),
      ),
    )
    history.commit(
      2n,
      diffWith((d) => d.storage.set(alice, { cleared: true, slots: new Map([[other, Uint8Array.of(9)]]) })),
    )
    expect(history.at(1n).storage(alice, slot)).toEqual(Uint8Array.of(7))
    expect(history.at(2n).storage(alice, slot)).toEqual(new Uint8Array())
    expect(history.at(2n).storage(alice, other)).toEqual(Uint8Array.of(9))
  })

  test('an overlay reads through to its parent and shadows it', () => {
    const history = createStateHistory()
    history.commit(
      0n,
      diffWith((d) => d.accounts.set(alice, account(1n))),
    )
    const pending = createOverlay(
      diffWith((d) => d.accounts.set(alice, account(5n))),
      history.at(0n),
    )
    expect(pending.account(alice)?.balance).toBe(5n)
    expect(history.at(0n).account(alice)?.balance).toBe(1n)
  })

  test('entries list the live accounts of the head with their storage', () => {
    const history = createStateHistory()
    history.commit(
      0n,
      diffWith((d) => {
        d.accounts.set(alice, account(1n))
        d.storage.set(alice, { cleared: false, slots: new Map([[slot, Uint8Array.of(1)]]) })
      }),
    )
    expect([...history.entries()]).toEqual([[alice, account(1n), new Map([[slot, Uint8Array.of(1)]])]])
  })

  test('an edit writes into its block, and a rewind with its undo takes back exactly what it wrote', () => {
    const history = createStateHistory()
    const bob = '0x0000000000000000000000000000000000000b0b' as Hex
    history.commit(
      0n,
      diffWith((d) => d.accounts.set(alice, account(1n))),
    )
    history.commit(
      1n,
      diffWith((d) => {
        d.accounts.set(alice, account(2n))
        d.storage.set(alice, { cleared: false, slots: new Map([[slot, Uint8Array.of(7)]]) })
      }),
    )
    const undo = history.apply({
      kind: 'edit',
      number: 1n,
      diff: diffWith((d) => {
        d.accounts.set(alice, account(50n))
        d.accounts.set(bob, account(60n))
        d.storage.set(alice, { cleared: false, slots: new Map([[slot, Uint8Array.of(8)]]) })
        d.storage.set(bob, { cleared: false, slots: new Map([[slot, Uint8Array.of(9)]]) })
      }),
    })!
    expect(history.at(1n).account(alice)?.balance).toBe(50n)
    expect(history.at(1n).account(bob)?.balance).toBe(60n)
    expect(history.at(1n).storage(alice, slot)).toEqual(Uint8Array.of(8))
    expect(history.at(0n).account(alice)?.balance).toBe(1n)
    expect(history.at(0n).account(bob)).toBeUndefined()

    // A revert to the edited block itself forgets no block, and takes the edit back.
    history.apply({ kind: 'rewind', number: 1n, undo: [{ number: 1n, undo }] })
    expect(history.at(1n).account(alice)?.balance).toBe(2n)
    expect(history.at(1n).account(bob)).toBeUndefined()
    expect(history.at(1n).storage(alice, slot)).toEqual(Uint8Array.of(7))
    expect(history.at(1n).storage(bob, slot)).toEqual(new Uint8Array())
    expect([...history.entries()].map(([address]) => address)).toEqual([alice])
  })

  test('rewind forgets the blocks after it, and the chain goes on from there', () => {
    const history = createStateHistory()
    history.commit(
      0n,
      diffWith((d) => d.accounts.set(alice, account(1n))),
    )
    history.commit(
      1n,
      diffWith((d) => {
        d.accounts.set(alice, null)
        d.storage.set(alice, { cleared: true, slots: new Map([[slot, Uint8Array.of(1)]]) })
      }),
    )
    history.commit(
      2n,
      diffWith((d) => d.accounts.set(alice, account(3n))),
    )
    history.apply({ kind: 'rewind', number: 0n, undo: [] })
    expect(history.at(5n).account(alice)?.balance).toBe(1n)
    expect(history.at(5n).storage(alice, slot)).toEqual(new Uint8Array())
    history.commit(
      1n,
      diffWith((d) => d.accounts.set(alice, account(4n))),
    )
    expect(history.at(0n).account(alice)?.balance).toBe(1n)
    expect(history.at(1n).account(alice)?.balance).toBe(4n)
    history.apply({ kind: 'rewind', number: -1n, undo: [] })
    expect(history.at(1n).account(alice)).toBeUndefined()
    expect([...history.entries()]).toEqual([])
  })

  test('a follower gets every change once it is applied, in order; a replica applying them holds the same state', () => {
    const history = createStateHistory()
    history.commit(
      0n,
      diffWith((d) => d.accounts.set(alice, account(1n))),
    )
    // A replica starts from a copy of the snapshot and applies copies of the changes, as a worker thread does.
    const replica = createStateHistory(structuredClone(history.snapshot()))
    const seen: string[] = []
    const unfollow = history.follow((change) => {
      if (change.kind === 'upstream') throw new Error('no upstream beneath this history')
      seen.push(`${change.kind} ${change.number} ${history.at(change.number < 0n ? 0n : change.number).account(alice)?.balance}`)
      replica.apply(structuredClone(change))
    })
    const same = () => expect([...replica.entries()]).toEqual([...history.entries()])

    history.apply({
      kind: 'block',
      number: 1n,
      hash: new Uint8Array(32),
      diff: diffWith((d) => {
        d.accounts.set(alice, account(2n))
        d.storage.set(alice, { cleared: true, slots: new Map([[slot, Uint8Array.of(7)]]) })
      }),
    })
    same()
    const undo = history.apply({ kind: 'edit', number: 1n, diff: diffWith((d) => d.accounts.set(alice, account(5n))) })!
    same()
    history.apply({ kind: 'block', number: 2n, hash: new Uint8Array(32), diff: diffWith((d) => d.accounts.set(alice, account(3n))) })
    same()
    history.apply({ kind: 'rewind', number: 1n, undo: [{ number: 1n, undo }] })
    same()
    expect(replica.at(1n).account(alice)?.balance).toBe(2n)
    expect(replica.at(1n).storage(alice, slot)).toEqual(Uint8Array.of(7))
    expect(seen).toEqual(['block 1 2', 'edit 1 5', 'block 2 3', 'rewind 1 2'])

    unfollow()
    history.apply({ kind: 'rewind', number: -1n, undo: [] })
    expect(seen).toHaveLength(4)
    expect(replica.at(1n).account(alice)?.balance).toBe(2n)
  })

  test('error: commit, which announces nothing, throws while the history is followed', () => {
    const history = createStateHistory()
    const unfollow = history.follow(() => {})
    expect(() => history.commit(0n, createStateDiff())).toThrow(
      'a block committed to a followed history would reach no follower: apply it as a change',
    )
    expect([...history.entries()]).toEqual([])
    unfollow()
    history.commit(
      0n,
      diffWith((d) => d.accounts.set(alice, account(1n))),
    )
    expect(history.at(0n).account(alice)?.balance).toBe(1n)
  })
})
