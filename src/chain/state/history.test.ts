import { describe, expect, test } from 'vitest'

import { KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'

import { createStateHistory } from './history.ts'
import type { EditUndo } from './history.ts'
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

const other = `0x${'00'.repeat(31)}02` as Hex

/** Alice's `slot` and `other` written with one byte each. */
const twoSlots = (first: number, second: number) =>
  diffWith((d) =>
    d.storage.set(alice, {
      cleared: false,
      slots: new Map([
        [slot, Uint8Array.of(first)],
        [other, Uint8Array.of(second)],
      ]),
    }),
  )

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
    history.commit(0n, twoSlots(7, 8))
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

  test('old versions read back as they were written, against a model of every block, through commits, edits and rewinds', () => {
    // A small generator of its own (xorshift32), so that a failure replays: the same seed, the same operations.
    let seed = 0x2935
    const random = (n: number) => {
      seed ^= seed << 13
      seed ^= seed >>> 17
      seed ^= seed << 5
      return (seed >>> 0) % n
    }
    const bytes = (length: number) => Uint8Array.from({ length }, () => random(256))
    const addresses = [alice, `0x${'00'.repeat(19)}0b` as Hex, `0x${'00'.repeat(19)}0c` as Hex]
    const slots = [slot, `0x${'ff'.repeat(32)}` as Hex, `0x${'00'.repeat(31)}00` as Hex]
    const anAccount = () =>
      random(5) === 0
        ? null
        : {
            nonce: random(4) === 0 ? 2n ** 40n + BigInt(random(1000)) : BigInt(random(3)),
            balance: random(2) === 0 ? BigInt(random(1000)) : 2n ** 255n + BigInt(random(1000)),
            storageRoot: random(2) === 0 ? KECCAK256_RLP : bytes(32),
            codeHash: random(2) === 0 ? KECCAK256_NULL : bytes(32),
          }
    // A slot's value with no leading zero, as the state keeps it: empty for zero.
    const aValue = () => {
      const kind = random(3)
      return kind === 0 ? new Uint8Array() : kind === 1 ? Uint8Array.of(1 + random(255)) : Uint8Array.of(0x80, ...bytes(31))
    }

    type State = { accounts: Map<Hex, unknown>; storage: Map<string, Uint8Array> }
    const model: State[] = []
    const copy = (state: State | undefined): State => ({ accounts: new Map(state?.accounts), storage: new Map(state?.storage) })
    const history = createStateHistory()
    let oldReads = 0
    const expectModel = () => {
      for (const [block, state] of model.entries()) {
        const reader = history.at(BigInt(block))
        for (const address of addresses) {
          expect(reader.account(address) ?? null, `${address} at ${block}`).toEqual(state.accounts.get(address) ?? null)
          for (const key of slots) {
            const value = reader.storage(address, key)
            expect(value, `${address} ${key} at ${block}`).toEqual(state.storage.get(`${address} ${key}`) ?? new Uint8Array())
            if (value.length > 0 && block < model.length - 1) oldReads++
          }
        }
      }
    }
    /** The edits since the last rewind, oldest first, and the state of each block they edited before the first. */
    const undone: { number: bigint; undo: EditUndo }[] = []
    let editsUndone: State[] = []
    const counts = { commits: 0, edits: 0, rewinds: 0 }
    for (let step = 0; step < 400; step++) {
      const choice = random(12)
      if (choice === 0 && model.length > 1) {
        counts.rewinds++
        const to = random(model.length)
        model.length = to + 1
        // The edits of the blocks forgotten go with them; those of the block reverted to are taken back, newest first.
        const taken = undone.filter(({ number }) => number === BigInt(to))
        history.apply({ kind: 'rewind', number: BigInt(to), undo: taken.toReversed() })
        model[to] = editsUndone[to] ?? model[to]!
        undone.length = 0
        editsUndone = []
        continue
      }
      const diff = createStateDiff()
      const editing = choice === 1 && model.length > 0
      const state = copy(model.at(-1))
      for (let writes = random(4); writes >= 0; writes--) {
        const address = addresses[random(3)]!
        if (random(2) === 0) {
          const written = anAccount()
          diff.accounts.set(address, written)
          state.accounts.set(address, written)
          continue
        }
        // An edit clears no storage.
        const storage = diff.storage.get(address) ?? { cleared: !editing && random(6) === 0, slots: new Map<Hex, Uint8Array>() }
        if (storage.cleared && !diff.storage.has(address)) for (const key of slots) state.storage.delete(`${address} ${key}`)
        const key = slots[random(3)]!
        const value = aValue()
        storage.slots.set(key, value)
        state.storage.set(`${address} ${key}`, value)
        diff.storage.set(address, storage)
      }
      if (editing) {
        counts.edits++
        const head = model.length - 1
        editsUndone[head] ??= model[head]!
        undone.push({ number: BigInt(head), undo: history.apply({ kind: 'edit', number: BigInt(head), diff })! })
        model[head] = state
      } else {
        counts.commits++
        // As a new chain commits its first blocks, or as a live chain applies them.
        if (random(2) === 0) history.commit(BigInt(model.length), diff)
        else history.apply({ kind: 'block', number: BigInt(model.length), hash: new Uint8Array(32), diff })
        model.push(state)
      }
      if (step % 20 === 0) expectModel()
    }
    expectModel()
    // The run went through each kind of change, and read old versions of slots that hold something.
    expect(Math.min(counts.commits, counts.edits, counts.rewinds)).toBeGreaterThan(10)
    expect(oldReads).toBeGreaterThan(100)
  })

  test('old versions are packed by each block that follows them, committed or applied; the newest stays as written', () => {
    const history = createStateHistory()
    const write = (balance: bigint, value: number) =>
      diffWith((d) => {
        d.accounts.set(alice, account(balance))
        d.storage.set(alice, { cleared: false, slots: new Map([[slot, Uint8Array.of(value)]]) })
      })
    const kinds = () => {
      const { accounts, storage } = history.snapshot()
      const typesOf = (values: unknown[]) => values.map((value) => (typeof value === 'string' ? 'packed' : 'as written'))
      return { account: typesOf(accounts.get(alice)!.values), slot: typesOf(storage.get(alice)!.slots.get(slot)!.values) }
    }
    for (let block = 0; block < 3; block++) history.commit(BigInt(block), write(BigInt(block), block + 1))
    expect(kinds()).toEqual({ account: ['packed', 'packed', 'as written'], slot: ['packed', 'packed', 'as written'] })

    history.apply({ kind: 'block', number: 3n, hash: new Uint8Array(32), diff: write(3n, 4) })
    expect(kinds()).toEqual({ account: ['packed', 'packed', 'packed', 'as written'], slot: ['packed', 'packed', 'packed', 'as written'] })
    // A rewind unpacks the version that is newest again.
    history.apply({ kind: 'rewind', number: 1n, undo: [] })
    expect(kinds()).toEqual({ account: ['packed', 'as written'], slot: ['packed', 'as written'] })
    expect(history.at(0n).account(alice)).toEqual(account(0n))
    expect(history.at(0n).storage(alice, slot)).toEqual(Uint8Array.of(1))
    expect(history.at(1n).account(alice)).toEqual(account(1n))
  })

  test('an edit clears no storage, whatever its diff says: a replica applies a rewind as an edit', () => {
    const history = createStateHistory()
    history.commit(0n, twoSlots(1, 2))
    history.commit(
      1n,
      diffWith((d) => d.accounts.set(alice, account(1n))),
    )
    // At a block after the slots' own: a clear there would hide them.
    const undo = history.apply({
      kind: 'edit',
      number: 1n,
      diff: diffWith((d) => d.storage.set(alice, { cleared: true, slots: new Map([[slot, Uint8Array.of(3)]]) })),
    })!
    expect(history.at(1n).storage(alice, slot)).toEqual(Uint8Array.of(3))
    expect(history.at(1n).storage(alice, other)).toEqual(Uint8Array.of(2))
    history.apply({ kind: 'rewind', number: 1n, undo: [{ number: 1n, undo }] })
    expect(history.at(1n).storage(alice, slot)).toEqual(Uint8Array.of(1))
    expect(history.at(1n).storage(alice, other)).toEqual(Uint8Array.of(2))
  })

  test('a record whose hashes are not 32 bytes is kept as it is, not packed', () => {
    const history = createStateHistory()
    const odd = { ...account(1n), storageRoot: new Uint8Array() }
    history.commit(
      0n,
      diffWith((d) => d.accounts.set(alice, odd)),
    )
    history.apply({ kind: 'block', number: 1n, hash: new Uint8Array(32), diff: diffWith((d) => d.accounts.set(alice, account(2n))) })
    expect(history.at(0n).account(alice)).toBe(odd)
    expect(history.at(1n).account(alice)?.balance).toBe(2n)
  })
})
