import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { keccak256 } from '../crypto/keccak.ts'
import { answerWorkerFetches } from '../execution/workerFetches.ts'
import { createStateHistory, createTouchedKeys } from '../state/history.ts'
import { createFetchedOlderState } from '../state/older.ts'
import { StateMiss, untilFetched } from '../state/miss.ts'
import { openChainStore } from './chainStore.ts'
import { StoreDamagedError, openDatabase } from './database.ts'

import type { DatabaseSync } from 'node:sqlite'
import type { HistoryChange, StateHistory } from '../state/history.ts'
import type { OlderRequest } from '../state/older.ts'
import type { AccountRecord, StateDiff, StateReader } from '../state/types.ts'
import type { ChainStore } from './chainStore.ts'
import type { Hex } from '../../hex.ts'

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Hex
const slot = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex
const eoa = (balance: bigint): AccountRecord => ({ nonce: 1n, balance, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_RLP })
const contract = (n: number): AccountRecord => ({
  nonce: 1n,
  balance: 0n,
  codeHash: keccak256(Uint8Array.of(7)),
  storageRoot: keccak256(Uint8Array.of(n)),
})
const diff = (): StateDiff => ({ accounts: new Map(), storage: new Map(), code: new Map() })

function writeBlock(store: ChainStore, number: number, written: StateDiff) {
  const rlp = RLP.encode([[Uint8Array.of(number)], [], []])
  store.writeBlock({ number: BigInt(number), hash: slot(1000 + number), rlp, receipts: [], senders: [], transactionHashes: [] }, written)
}

/**
 * Blocks 0 to 9: alice's balance is the block's number; the contract's slot 1 is written at each even block and its
 * storage cleared at block 5 (then slot 2 written in the same block, after the clear), slot 3 written at block 7 and
 * slot 4 at block 1 only;
 * bob exists from block 3 to 6, and carol from block 6.
 */
function writeChain(store: ChainStore) {
  const [alice, bob, token, carol] = [address(1), address(2), address(3), address(4)]
  for (let number = 0; number <= 9; number++) {
    const written = diff()
    written.accounts.set(alice, eoa(BigInt(number)))
    if (number === 3) written.accounts.set(bob, eoa(30n))
    if (number === 7) written.accounts.set(bob, null)
    if (number === 6) written.accounts.set(carol, eoa(60n))
    written.accounts.set(token, contract(number))
    if (number === 0) written.code.set(`0x${Buffer.from(keccak256(Uint8Array.of(7))).toString('hex')}` as Hex, Uint8Array.of(7))
    const slots = new Map<Hex, Uint8Array>()
    if (number % 2 === 0) slots.set(slot(1), Uint8Array.of(number + 1))
    if (number === 5) slots.set(slot(2), Uint8Array.of(55))
    if (number === 7) slots.set(slot(3), Uint8Array.of(77))
    if (number === 1) slots.set(slot(4), Uint8Array.of(44))
    written.storage.set(token, { cleared: number === 5, slots })
    writeBlock(store, number, written)
  }
  // An edit of the head after its block: the newest write of alice is the edit's.
  const edit = diff()
  edit.accounts.set(alice, eoa(99n))
  store.writeEdit(9n, edit)
  return { alice, bob, token, carol }
}

/** What a block's state reads for the chain above's keys. */
function readAll(state: StateReader, keys: ReturnType<typeof writeChain>) {
  return {
    alice: state.account(keys.alice),
    bob: state.account(keys.bob),
    token: state.account(keys.token),
    carol: state.account(keys.carol),
    slots: [1, 2, 3, 4].map((n) => state.storage(keys.token, slot(n))),
  }
}

/** Entries by address: a loaded history holds its keys in another order. */
const sorted = <T extends [Hex, ...unknown[]]>(entries: Iterable<T>) => [...entries].sort(([a], [b]) => a.localeCompare(b))

/** The same writes committed whole to a history in memory, as a chain that never restarted holds them. */
function inMemory(): { history: StateHistory; keys: ReturnType<typeof writeChain> } {
  const store = openChainStore(openDatabase({}))
  const history = createStateHistory()
  const writes: StateDiff[] = []
  const recording: ChainStore = {
    ...store,
    writeBlock: (_block, written) => void writes.push(written),
    writeEdit: (_number, written) => {
      const last = writes.at(-1)!
      for (const [key, value] of written.accounts) last.accounts.set(key, value)
    },
  }
  const keys = writeChain(recording)
  for (const [number, written] of writes.entries()) history.commit(BigInt(number), written)
  return { history, keys }
}

describe('a history loaded from its store', () => {
  test("holds only each key's newest write, and reads every older block from the rows as a history that kept them all", () => {
    const store = openChainStore(openDatabase({}))
    const keys = writeChain(store)
    const loaded = createStateHistory()
    store.loadState(loaded)
    const whole = inMemory().history

    // Memory holds one version per key: the newest.
    const none = new Uint8Array(0)
    expect(readAll(loaded.at(9n), keys)).toEqual({
      alice: eoa(99n),
      bob: undefined,
      token: contract(9),
      carol: eoa(60n),
      slots: [...[9, 55, 77].map((n) => Uint8Array.of(n)), none],
    })
    const snapshot = loaded.snapshot()
    expect(snapshot.horizon).toBe(9)
    for (const versions of snapshot.accounts.values()) expect(versions.blocks).toHaveLength(1)
    expect(snapshot.storage.get(keys.token)!.slots.get(slot(1))!.blocks).toEqual([8])
    expect(snapshot.storage.get(keys.token)!.clears).toEqual([5])

    for (let number = 0n; number <= 9n; number++) {
      expect(readAll(loaded.at(number), keys), `block ${number}`).toEqual(readAll(whole.at(number), keys))
      expect(sorted(loaded.entries(number)), `block ${number}'s entries`).toEqual(sorted(whole.entries(number)))
    }
    expect(readAll(loaded.at(4n), keys)).toEqual({
      alice: eoa(4n),
      bob: eoa(30n),
      token: contract(4),
      carol: undefined,
      slots: [Uint8Array.of(5), none, none, Uint8Array.of(44)],
    })
    expect(readAll(loaded.at(5n), keys).slots).toEqual([none, Uint8Array.of(55), none, none])
    expect(readAll(loaded.at(7n), keys)).toMatchObject({
      bob: undefined,
      carol: eoa(60n),
      slots: [Uint8Array.of(7), Uint8Array.of(55), Uint8Array.of(77), none],
    })
    expect(loaded.at(9n).account(keys.alice)).toEqual(eoa(99n))
  })

  test('a rewind before the horizon loads the rows up to its block again, touches every key, and hands its followers the same rows', async () => {
    const store = openChainStore(openDatabase({}))
    const keys = writeChain(store)
    const history = createStateHistory()
    store.loadState(history)
    // A worker's replica: the same snapshot, the older blocks asked of this history's store.
    const asked: OlderRequest[] = []
    const answer = answerWorkerFetches({ history, remote: () => undefined, blockHashes: () => undefined })
    const ask = (request: OlderRequest) => {
      asked.push(request)
      return answer(request)
    }
    const replica = createStateHistory(structuredClone(history.snapshot()), undefined, createFetchedOlderState(ask))
    const changes: HistoryChange[] = []
    history.follow((change) => {
      changes.push(change)
      replica.apply(structuredClone(change))
    })

    store.truncate(4n)
    const touched = createTouchedKeys()
    history.apply({ kind: 'rewind', number: 4n, undo: [] }, touched)
    expect(changes[0]).toMatchObject({ kind: 'rewind', number: 4n, reload: expect.any(Array) })
    // Carol and slot 3 were written after block 4 only: they are gone, and touched too.
    expect([...touched.accounts].sort()).toEqual([keys.alice, keys.bob, keys.token, keys.carol])
    expect(touched.slots.get(keys.token)).toEqual(new Set([slot(1), slot(2), slot(3), slot(4)]))
    expect(history.snapshot().horizon).toBe(4)

    const whole = inMemory().history
    // A whole old state too: a worker asks the main thread for it (a simulation's base block's trie).
    expect(await untilFetched(() => sorted(replica.entries(2n)))).toEqual(sorted(whole.entries(2n)))
    expect(asked).toContainEqual(['olderNewest', 2])
    for (let number = 0n; number <= 4n; number++) {
      expect(readAll(history.at(number), keys), `block ${number}`).toEqual(readAll(whole.at(number), keys))
      expect(await untilFetched(() => readAll(replica.at(number), keys)), `the replica's block ${number}`).toEqual(readAll(whole.at(number), keys))
    }
    // The replica read the blocks before the new horizon from this thread, and block 4 from its own memory; and only
    // keys written between the block read and the horizon: carol never was by block 4, bob not after block 3.
    expect(asked.length).toBeGreaterThan(0)
    expect(asked.every((request) => (request.at(-1) as number) < 4)).toBe(true)
    expect(asked.filter((request) => request[1] === keys.carol)).toEqual([])
    expect(asked.filter((request) => request[1] === keys.bob).map((request) => request.at(-1))).toEqual([0, 1, 2])

    // A block after the rewind goes on from there, on both.
    const next = diff()
    next.accounts.set(keys.alice, eoa(500n))
    history.apply({ kind: 'block', number: 5n, hash: new Uint8Array(32), diff: next })
    expect(history.at(5n).account(keys.alice)).toEqual(eoa(500n))
    expect(replica.at(5n).account(keys.alice)).toEqual(eoa(500n))
    expect(replica.at(5n).storage(keys.token, slot(1))).toEqual(Uint8Array.of(5))
  })

  test("a worker's read of an older block waits for the main thread's answer once, and one asked before a rewind is not kept", async () => {
    let answer: (value: unknown) => void = () => {}
    const older = createFetchedOlderState(() => new Promise((resolve) => (answer = resolve)))
    const miss = (() => {
      try {
        older.account(address(1), 3)
      } catch (error) {
        return error
      }
    })()
    expect(miss).toBeInstanceOf(StateMiss)
    answer(eoa(3n))
    await (miss as StateMiss).fetched
    expect(older.account(address(1), 3)).toEqual(eoa(3n))
    expect(() => older.account(address(1), 2)).toThrow(StateMiss)

    // Asked, then a rewind below the horizon: the answer may be of rows since dropped, and is asked again.
    const asked = (() => {
      try {
        older.storage(address(1), slot(1), 2)
      } catch (error) {
        return error as StateMiss
      }
    })()!
    older.forget()
    answer(Uint8Array.of(1))
    await asked.fetched
    expect(() => older.storage(address(1), slot(1), 2)).toThrow(StateMiss)
    expect(() => older.account(address(1), 3)).toThrow(StateMiss)
  })
})

describe('the horizon', () => {
  test('moves on as blocks come, so that memory holds the last blocks whole and each key once before them', () => {
    const store = openChainStore(openDatabase({}))
    const [alice, bob] = [address(1), address(2)]
    const history = createStateHistory()
    const first = diff()
    first.accounts.set(bob, eoa(7n))
    first.storage.set(bob, { cleared: false, slots: new Map([[slot(1), Uint8Array.of(1)]]) })
    writeBlock(store, 0, first)
    history.load([[0, first]], 0, store.older)
    // A read of a block before the horizon, kept by the store's reader from before the horizon moved past the rows
    // after it: it must read them again.
    expect(history.at(0n).account(alice)).toBeUndefined()
    const last = 8192 + 1024 + 10
    for (let number = 1; number <= last; number++) {
      const written = diff()
      written.accounts.set(alice, eoa(BigInt(number)))
      if ([300, 500, 3000].includes(number)) written.storage.set(bob, { cleared: true, slots: new Map() })
      writeBlock(store, number, written)
      history.apply({ kind: 'block', number: BigInt(number), hash: new Uint8Array(32), diff: written })
      if (number === 20) expect(store.older.account(alice, 10)).toEqual(eoa(10n))
    }
    const { accounts, storage, journal, horizon } = history.snapshot()
    expect(horizon).toBe(last - 10 - 8192)
    // Alice: her write at the horizon and every one after; bob: his only write, and his last clear before it and after.
    expect(accounts.get(alice)!.blocks).toEqual(Array.from({ length: 8193 + 10 }, (_, i) => horizon + i))
    expect(accounts.get(bob)!.blocks).toEqual([0])
    expect(storage.get(bob)!.clears).toEqual([500, 3000])
    expect(journal[0]!.block).toBe(horizon + 1)
    for (const number of [0, 5, 299, 300, 2999, 3000, horizon - 1, horizon, last]) {
      expect(history.at(BigInt(number)).account(alice), `block ${number}`).toEqual(number === 0 ? undefined : eoa(BigInt(number)))
      expect(history.at(BigInt(number)).account(bob)).toEqual(eoa(7n))
      expect(history.at(BigInt(number)).storage(bob, slot(1))).toEqual(number < 300 ? Uint8Array.of(1) : new Uint8Array(0))
    }
    // A rewind within the blocks memory holds steps back; one before the horizon loads the rows up to it again.
    history.apply({ kind: 'rewind', number: BigInt(last - 5), undo: [] })
    expect(history.snapshot().horizon).toBe(horizon)
    store.truncate(100n)
    history.apply({ kind: 'rewind', number: 100n, undo: [] })
    expect(history.snapshot().horizon).toBe(100)
    expect(history.at(100n).account(alice)).toEqual(eoa(100n))
    expect(history.at(50n).account(alice)).toEqual(eoa(50n))
  })
})

describe('the newest tables', () => {
  /** What a restart of the store over `db` loads, and each block's state and entries as it reads them. */
  function restart(db: DatabaseSync, keys: ReturnType<typeof writeChain>) {
    const history = createStateHistory()
    openChainStore(db).loadState(history)
    return Array.from({ length: 10 }, (_, number) => ({
      reads: readAll(history.at(BigInt(number)), keys),
      entries: sorted(history.entries(BigInt(number))),
    }))
  }
  const expected = () => {
    const { history, keys } = inMemory()
    return Array.from({ length: 10 }, (_, number) => ({
      reads: readAll(history.at(BigInt(number)), keys),
      entries: sorted(history.entries(BigInt(number))),
    }))
  }
  const count = (db: DatabaseSync, table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
  const mark = (db: DatabaseSync) => JSON.parse((db.prepare("SELECT value FROM meta WHERE key = 'newest_mark'").get() as { value: string }).value)

  test('are brought up to date as rows are written, and a start reads them and the rows since as one that reads every row', () => {
    const db = openDatabase({})
    // Every 7 rows: the tables are brought up to date part way through, and the rows after are read beside them.
    const keys = writeChain(openChainStore(db, undefined, { refreshRows: 7 }))
    const kept = mark(db)
    expect(kept.accounts).toBeGreaterThan(0)
    expect(kept.accounts).toBeLessThan(count(db, 'accounts'))
    // The token's records keep their code hash (SAME_CODE) on both sides of the mark: the tables' record holds it.
    expect(count(db, 'newest_accounts')).toBeGreaterThan(0)
    expect(restart(db, keys)).toEqual(expected())
    // The next block brings the rows since into the tables (a start writes nothing): they hold every key's newest
    // write, slot 4 (cleared at block 5) gone.
    writeBlock(openChainStore(db, undefined, { refreshRows: 1 }), 10, diff())
    expect(mark(db)).toEqual({ accounts: count(db, 'accounts'), storage: count(db, 'storage'), clears: count(db, 'storage_clears') })
    expect(count(db, 'newest_accounts')).toBe(4)
    expect(count(db, 'newest_storage')).toBe(3)
    expect(restart(db, keys)).toEqual(expected())

    // Brought up to date two rows of each table at a time: each block's write brings in two more, behind the rows.
    const stepwise = openDatabase({})
    writeChain(openChainStore(stepwise, undefined, { refreshRows: 7, rowsPerBlock: 2 }))
    const behind = mark(stepwise)
    expect(behind.accounts).toBeGreaterThan(0)
    expect(behind.accounts).toBeLessThan(count(stepwise, 'accounts'))
    expect(restart(stepwise, keys)).toEqual(expected())

    // A store that kept none (written before the tables were) is read whole, until blocks bring every row in.
    const older = openDatabase({})
    writeChain(openChainStore(older))
    expect(count(older, 'newest_accounts')).toBe(0)
    expect(restart(older, keys)).toEqual(expected())
    writeBlock(openChainStore(older, undefined, { refreshRows: 1 }), 10, diff())
    expect([count(older, 'newest_accounts'), count(older, 'newest_storage'), count(older, 'newest_clears')]).toEqual([4, 3, 1])
  })

  test('a rewind that drops rows they hold drops them, and the blocks after bring every row in again', () => {
    const db = openDatabase({})
    const store = openChainStore(db, undefined, { refreshRows: 7 })
    const early = store.mark()
    const keys = writeChain(store)
    expect(count(db, 'newest_accounts')).toBeGreaterThan(0)
    store.rewind(-1n, { mark: early }, [])
    expect([count(db, 'newest_accounts'), count(db, 'newest_storage'), count(db, 'newest_clears')]).toEqual([0, 0, 0])
    expect(mark(db)).toEqual({ accounts: 0, storage: 0, clears: 0 })
    // Written again after the rewind: the blocks bring the rows into the tables again.
    writeChain(store)
    expect(count(db, 'newest_accounts')).toBeGreaterThan(0)
    expect(restart(db, keys)).toEqual(expected())

    // A rewind to a mark after the tables' keeps them.
    const written = diff()
    for (let n = 10; n < 18; n++) written.accounts.set(address(n), eoa(BigInt(n)))
    writeBlock(store, 10, written)
    expect(mark(db).accounts).toBe(count(db, 'accounts'))
    expect(count(db, 'newest_accounts')).toBe(12)
    const after = store.mark()
    const one = diff()
    one.accounts.set(keys.alice, eoa(7n))
    writeBlock(store, 11, one)
    store.rewind(10n, { mark: after }, [])
    expect(count(db, 'newest_accounts')).toBe(12)
    expect(restart(db, keys)).toEqual(expected())
  })

  test('a write or a rewind that rolls back takes what the store knows of the tables back with them', () => {
    const alice = address(1)
    const bob = address(2)
    const balanceAfterRestart = (db: DatabaseSync, number: bigint, who: Hex) => {
      const history = createStateHistory()
      openChainStore(db).loadState(history)
      return history.at(number).account(who)?.balance
    }
    const blockOf = (store: ChainStore, number: number, who: Hex, balance: bigint, transactionHashes: Hex[] = []) => {
      const written = diff()
      written.accounts.set(who, eoa(balance))
      const rlp = RLP.encode([[Uint8Array.of(number)], [], []])
      store.writeBlock({ number: BigInt(number), hash: slot(1000 + number), rlp, receipts: [], senders: [], transactionHashes }, written)
    }

    // A rewind whose participant fails: the tables and their mark stay, and a later rewind below it drops them.
    const rewound = openDatabase({})
    let store = openChainStore(rewound, undefined, { refreshRows: 1 })
    for (let n = 0; n <= 3; n++) blockOf(store, n, alice, BigInt(n))
    const atThree = store.mark()
    for (let n = 4; n <= 5; n++) blockOf(store, n, alice, BigInt(n))
    const failing = () => {
      throw new Error('a participant could not restore')
    }
    expect(() => store.rewind(3n, { mark: atThree }, [], failing)).toThrow('a participant could not restore')
    store.rewind(3n, { mark: atThree }, [])
    for (let n = 4; n <= 5; n++) blockOf(store, n, alice, BigInt(n * 10))
    expect(balanceAfterRestart(rewound, 5n, alice)).toBe(50n)

    // A block whose write fails after the tables were brought up to date in it: the rows written again reach them.
    const failed = openDatabase({})
    store = openChainStore(failed, undefined, { refreshRows: 1 })
    for (let n = 0; n <= 2; n++) blockOf(store, n, alice, BigInt(n))
    store.addPoolTransaction(slot(7), Uint8Array.of(1))
    failed.exec("CREATE TRIGGER fail BEFORE DELETE ON pool BEGIN SELECT RAISE(ABORT, 'disk full'); END")
    expect(() => blockOf(store, 3, bob, 3n, [slot(7)])).toThrow('disk full')
    failed.exec('DROP TRIGGER fail')
    blockOf(store, 3, bob, 33n)
    blockOf(store, 4, alice, 4n)
    expect(balanceAfterRestart(failed, 4n, bob)).toBe(33n)
  })

  test('error: tables that say a key was written past the head are a damaged store', () => {
    const db = openDatabase({})
    writeChain(openChainStore(db, undefined, { refreshRows: 7 }))
    db.exec('UPDATE newest_accounts SET block = 12')
    expect(() => openChainStore(db).loadState(createStateHistory())).toThrow(StoreDamagedError)
  })
})
