import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, describe, expect, test } from 'vitest'

import { EMPTY_BLOOM } from '../blocks/types.ts'
import { openChainStore } from './chainStore.ts'
import { StoreDamagedError, openDatabase } from './database.ts'

import type { Receipt } from '../types.ts'
import type { Hex } from '../../hex.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flashchain-store-'))
  dirs.push(dir)
  return dir
}

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex
const raw = (n: number) => new Uint8Array([n])

describe('the pool table', () => {
  test('gives transactions back in arrival order, a re-sent one in its first place', () => {
    const store = openChainStore(openDatabase({}))
    for (const n of [3, 1, 2]) store.addPoolTransaction(hash(n), raw(n))
    store.addPoolTransaction(hash(3), raw(3))
    expect(store.poolTransactions().map((entry) => entry.raw)).toEqual([raw(3), raw(1), raw(2)])
  })

  test('after a restart, new arrivals queue behind the ones kept, and removed ones stay gone', () => {
    const dir = dataDir()
    const first = openDatabase({ dataDir: dir })
    const before = openChainStore(first)
    for (const n of [1, 2, 3]) before.addPoolTransaction(hash(n), raw(n))
    before.removePoolTransactions([hash(2)])
    first.close()

    const second = openDatabase({ dataDir: dir })
    const after = openChainStore(second)
    after.addPoolTransaction(hash(4), raw(4))
    expect(after.poolTransactions().map((entry) => entry.raw)).toEqual([raw(1), raw(3), raw(4)])
    second.close()
  })

  test("keeps an impersonated transaction's sender, and nothing for a signed one", () => {
    const store = openChainStore(openDatabase({}))
    const sender = `0x${'ab'.repeat(20)}` as Hex
    const publicKey = new Uint8Array(64).fill(9)
    store.addPoolTransaction(hash(1), raw(1), sender)
    store.addPoolTransaction(hash(2), raw(2), undefined, publicKey)
    expect(store.poolTransactions()).toEqual([
      { hash: hash(1), raw: raw(1), sender, publicKey: undefined },
      { hash: hash(2), raw: raw(2), sender: undefined, publicKey },
    ])
  })

  test('a store written before the sender and public key columns gets them', () => {
    const db = openDatabase({})
    db.exec('CREATE TABLE pool (hash BLOB PRIMARY KEY, raw BLOB NOT NULL, seq INTEGER NOT NULL) WITHOUT ROWID')
    db.prepare('INSERT INTO pool (hash, raw, seq) VALUES (?, ?, 1)').run(new Uint8Array(32).fill(7), raw(7))
    const store = openChainStore(db)
    expect(store.poolTransactions()).toEqual([{ hash: `0x${'07'.repeat(32)}`, raw: raw(7), sender: undefined, publicKey: undefined }])
  })
})

describe('the blocks table', () => {
  const transfer: Receipt = {
    status: 1,
    cumulativeGasUsed: 21_000n,
    gasUsed: 21_000n,
    logs: [],
    logsBloom: EMPTY_BLOOM,
    contractAddress: null,
    effectiveGasPrice: 7n,
  }
  const logged: Receipt = {
    ...transfer,
    cumulativeGasUsed: 60_000n,
    gasUsed: 39_000n,
    logs: [{ address: `0x${'aa'.repeat(20)}`, topics: [hash(1)], data: '0x01' }],
    logsBloom: `0x${'00'.repeat(100)}ff${'00'.repeat(155)}`,
  }
  const emptyDiff = () => ({ accounts: new Map(), storage: new Map(), code: new Map() })

  test('a block reads back as written; an empty logs bloom is not stored', () => {
    const db = openDatabase({})
    const store = openChainStore(db)
    const block = {
      number: 1n,
      hash: hash(9),
      rlp: new Uint8Array([0xc0]),
      receipts: [transfer, logged],
      senders: [`0x${'11'.repeat(20)}` as Hex, `0x${'22'.repeat(20)}` as Hex],
    }
    store.writeBlock({ ...block, transactionHashes: [] }, emptyDiff())
    const { hash: _hash, ...stored } = block
    expect(store.block(1n)).toEqual(stored)
    expect(store.block(1n)!.receipts[0]!.logsBloom).toBe(EMPTY_BLOOM)
    expect(store.block(2n)).toBeUndefined()
    expect(store.blockReceipts(1n)).toEqual({ rlp: block.rlp, receipts: block.receipts })
    expect(store.blockReceipts(2n)).toBeUndefined()
    const { receipts } = db.prepare('SELECT receipts FROM blocks WHERE number = 1').get() as { receipts: string }
    // Only the logged receipt's bloom is stored: 920 characters, against 1434 with both.
    expect(receipts.split('logsBloom')).toHaveLength(2)
    expect(receipts.length).toBeLessThan(1000)
  })

  test('a receipt stored with its empty bloom, as before, reads back with the shared one', () => {
    const db = openDatabase({})
    const store = openChainStore(db)
    db.prepare('INSERT INTO blocks (number, hash, rlp, receipts, senders) VALUES (?, ?, ?, ?, ?)').run(
      3,
      new Uint8Array(32),
      new Uint8Array([0xc0]),
      JSON.stringify([{ ...transfer, cumulativeGasUsed: '0x5208', gasUsed: '0x5208', effectiveGasPrice: '0x7', logsBloom: `0x${'00'.repeat(256)}` }]),
      new Uint8Array(20),
    )
    expect(store.block(3n)!.receipts).toEqual([transfer])
  })
})

describe('how blocks are kept', () => {
  test('a store written before blocks were deflated reads its blocks as they are, and says how it keeps the next ones', () => {
    const db = openDatabase({})
    db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID')
    db.exec('CREATE TABLE blocks (number INTEGER PRIMARY KEY, hash BLOB NOT NULL, rlp BLOB NOT NULL, receipts TEXT NOT NULL, senders BLOB NOT NULL)')
    db.prepare('INSERT INTO blocks (number, hash, rlp, receipts, senders) VALUES (?, ?, ?, ?, ?)').run(
      4,
      new Uint8Array(32),
      Uint8Array.of(0xc2, 0xc0, 0xc0),
      '[]',
      new Uint8Array(0),
    )
    const store = openChainStore(db)
    expect(store.block(4n)!.rlp).toEqual(Uint8Array.of(0xc2, 0xc0, 0xc0))
    expect(db.prepare("SELECT value FROM meta WHERE key = 'block_encoding'").get()).toEqual({ value: 'rlp-or-deflated-1' })
  })

  test("error: a store that keeps its blocks in a way this flashchain does not read (a newer one's) is refused", () => {
    const db = openDatabase({})
    db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID')
    db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('block_encoding', 'something-newer')
    expect(() => openChainStore(db)).toThrow(StoreDamagedError)
    expect(() => openChainStore(db)).toThrow(
      'this store keeps its blocks as something-newer, which a newer flashchain wrote; this one reads rlp-or-deflated-1',
    )
  })
})

describe('rewind', () => {
  const account = (balance: bigint) => ({ nonce: 0n, balance, codeHash: new Uint8Array(32), storageRoot: new Uint8Array(32) })
  const diffOf = (address: Hex, balance: bigint) => ({ accounts: new Map([[address, account(balance)]]), storage: new Map(), code: new Map() })
  const alice = `0x${'a1'.repeat(20)}` as Hex
  const block = (number: bigint) => ({
    number,
    hash: hash(Number(number) + 100),
    rlp: raw(Number(number)),
    receipts: [],
    senders: [],
    transactionHashes: [],
  })
  const balances = (store: ReturnType<typeof openChainStore>) => {
    const seen: bigint[] = []
    store.loadState({
      commit: (_n: bigint, diff: { accounts: Map<Hex, { balance: bigint } | null> }) => seen.push(diff.accounts.get(alice)!.balance),
    } as never)
    return seen
  }

  test('forgets the blocks after it and every state write after the mark, and replaces the pool, in one transaction', () => {
    const store = openChainStore(openDatabase({}))
    store.writeBlock(block(0n), diffOf(alice, 1n))
    store.writeBlock(block(1n), diffOf(alice, 2n))
    const mark = store.mark()
    store.writeEdit(1n, diffOf(alice, 3n))
    store.writeBlock(block(2n), diffOf(alice, 4n))
    store.addPoolTransaction(hash(9), raw(9))

    store.rewind(1n, { mark }, [{ hash: hash(8), raw: raw(8) }])
    expect([...store.blocks()].map((stored) => stored.number)).toEqual([0n, 1n])
    expect(balances(store)).toEqual([1n, 2n])
    expect(store.poolTransactions().map((entry) => entry.hash)).toEqual([hash(8)])
  })

  test('error: when what runs inside it throws, nothing is rewound', () => {
    const store = openChainStore(openDatabase({}))
    store.writeBlock(block(0n), diffOf(alice, 1n))
    const mark = store.mark()
    store.writeBlock(block(1n), diffOf(alice, 2n))
    expect(() =>
      store.rewind(0n, { mark }, [], () => {
        throw new Error('the wallet could not restore')
      }),
    ).toThrow(/could not restore/)
    expect([...store.blocks()].map((stored) => stored.number)).toEqual([0n, 1n])
    expect(balances(store)).toEqual([1n, 2n])
  })

  test("a reset forgets block 0's writes too, and writes the genesis state again", () => {
    const store = openChainStore(openDatabase({}))
    store.writeBlock(block(0n), diffOf(alice, 1n))
    store.writeEdit(0n, diffOf(alice, 5n))
    store.writeBlock(block(1n), diffOf(alice, 2n))
    store.rewind(0n, { genesis: diffOf(alice, 1n) }, [])
    expect([...store.blocks()].map((stored) => stored.number)).toEqual([0n])
    expect(balances(store)).toEqual([1n])
  })

  test("truncate forgets the blocks after it and the state they wrote, and keeps each earlier block's writes and edits", () => {
    const store = openChainStore(openDatabase({}))
    const bob = `0x${'b0'.repeat(20)}` as Hex
    const both = (a: bigint, b: bigint) => ({
      accounts: new Map([
        [alice, account(a)],
        [bob, account(b)],
      ]),
      storage: new Map(),
      code: new Map(),
    })
    store.writeBlock(block(0n), both(1n, 10n))
    for (let n = 1n; n <= 40n; n++) {
      store.writeBlock(block(n), diffOf(alice, 1n + n))
      // An edit of the head between blocks, as anvil_setBalance makes one.
      if (n % 7n === 0n) store.writeEdit(n, diffOf(alice, 1000n + n))
    }
    store.truncate(21n)
    expect([...store.blocks()].map((stored) => stored.number)).toEqual(Array.from({ length: 22 }, (_, i) => BigInt(i)))
    // Block 0's two accounts, then blocks 1 to 21 with the edits of blocks 7, 14 and 21.
    expect(balances(store)).toEqual([1n, ...Array.from({ length: 21 }, (_, i) => ([7, 14, 21].includes(i + 1) ? 1001n + BigInt(i) : 2n + BigInt(i)))])
    // What comes next is written after what was kept, and truncating again past the head forgets nothing.
    store.writeBlock(block(22n), diffOf(alice, 99n))
    store.truncate(30n)
    expect(balances(store).at(-1)).toBe(99n)
    store.truncate(0n)
    expect(balances(store)).toEqual([1n])
    expect([...store.blocks()].map((stored) => stored.number)).toEqual([0n])
  })
})
