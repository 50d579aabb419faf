import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, describe, expect, test } from 'vitest'

import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'

import { EMPTY_BLOOM } from '../blocks/types.ts'
import { keccak256 } from '../crypto/keccak.ts'
import { createStateHistory } from '../state/history.ts'
import { encodeStoredBlock } from './blockEncoding.ts'
import { addressKey, logsBloomOf, splitBlock, topicKey } from './blockRows.ts'
import { openChainStore } from './chainStore.ts'
import { StoreDamagedError, openDatabase } from './database.ts'

import type { DatabaseSync } from 'node:sqlite'
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
    logsBloom: logsBloomOf([{ address: `0x${'aa'.repeat(20)}`, topics: [hash(1)], data: '0x01' }]),
  }
  const emptyDiff = () => ({ accounts: new Map(), storage: new Map(), code: new Map() })

  /** A block of two transactions, a typed one and a legacy one (an RLP list in the body), after 12 header fields. */
  const header = Array.from({ length: 12 }, (_, i) => Uint8Array.of(i + 1))
  const typed = Uint8Array.of(0x02, 0xc3, 0x01, 0x02, 0x03)
  const legacy = [Uint8Array.of(0x09), Uint8Array.of(0x0a)]
  const blockRlp = (number: number) => RLP.encode([[...header.slice(0, 11), Uint8Array.of(number)], [typed, legacy], [], []])
  const senders = [`0x${'11'.repeat(20)}` as Hex, `0x${'22'.repeat(20)}` as Hex]
  const txHash = (raw: Uint8Array) => bytesToHex(keccak256(raw)) as Hex
  const legacyHash = txHash(RLP.encode(legacy))

  test('a block reads back as written, and a transaction is found alone with its receipt; no bloom is stored, since its logs give it back', () => {
    const db = openDatabase({})
    const store = openChainStore(db)
    const block = { number: 1n, hash: hash(9), rlp: blockRlp(1), receipts: [logged, transfer], senders }
    store.writeBlock({ ...block, transactionHashes: [] }, emptyDiff())
    const { hash: _hash, ...stored } = block
    expect(store.block(1n)).toEqual(stored)
    expect(store.block(1n)!.receipts[1]!.logsBloom).toBe(EMPTY_BLOOM)
    expect(store.block(2n)).toBeUndefined()
    expect(store.head()).toBe(1n)
    expect(store.blockHashes(0n)).toEqual(hexToBytes(hash(9)))
    expect(store.numberOf(hash(9))).toBe(1n)
    expect(store.numberOf(hash(8))).toBeUndefined()
    expect(store.header(1n)).toEqual([...header.slice(0, 11), Uint8Array.of(1)])
    expect(store.summary(1n)).toEqual({ body: splitBlock(blockRlp(1)).body, hashes: [txHash(typed), legacyHash], size: blockRlp(1).length })
    expect(store.summary(2n)).toBeUndefined()
    expect(store.locate(txHash(typed))).toEqual({ number: 1n, index: 0 })
    expect(store.transaction(legacyHash)).toEqual({
      number: 1n,
      index: 1,
      hash: legacyHash,
      raw: RLP.encode(legacy),
      sender: senders[1],
      receipt: transfer,
      firstLog: 1,
    })
    expect(store.transaction(hash(5))).toBeUndefined()
    const receipts = db.prepare('SELECT receipt FROM transactions ORDER BY id').all() as { receipt: string }[]
    expect(receipts.map((row) => row.receipt.includes('logsBloom'))).toEqual([false, false])
    // The block row holds no transaction.
    expect(store.block(1n)!.rlp.length).toBeGreaterThan((db.prepare('SELECT rlp FROM blocks').get() as { rlp: Uint8Array }).rlp.length)
  })

  test('the log index reads the transactions of the narrowest criterion only, and forgets with the blocks', () => {
    const store = openChainStore(openDatabase({}))
    const token = `0x${'aa'.repeat(20)}` as Hex
    const to = (n: number) => hash(0x1000 + n)
    const transferTo = (n: number): Receipt => {
      const logs = [{ address: token, topics: [hash(1), hash(2), to(n)], data: '0x' as Hex }]
      return { ...transfer, logs, logsBloom: logsBloomOf(logs) }
    }
    // Blocks 0 to 5, two transactions each: every one a Transfer of the token; the second of block 3 to recipient 7.
    for (let number = 0; number <= 5; number++) {
      const receipts = [transferTo(number), transferTo(number === 3 ? 7 : 100 + number)]
      store.writeBlock(
        {
          number: BigInt(number),
          hash: hash(50 + number),
          rlp: blockRlp(number),
          receipts,
          senders,
          transactionHashes: [hash(200 + 2 * number), hash(201 + 2 * number)],
        },
        emptyDiff(),
      )
    }
    const rows = (from: bigint, to: bigint, criteria: Uint8Array[][]) =>
      [...store.logRows(from, to, criteria)].map((row) => `${row.number}:${row.index}`)
    const all = ['0:0', '0:1', '1:0', '1:1', '2:0', '2:1', '3:0', '3:1', '4:0', '4:1', '5:0', '5:1']
    expect(rows(0n, 5n, [])).toEqual(all)
    expect(rows(2n, 3n, [[addressKey(token)]])).toEqual(['2:0', '2:1', '3:0', '3:1'])
    // The recipient's topic is the narrowest: only its transaction is read, whatever the other criteria hold.
    expect(rows(0n, 5n, [[addressKey(token)], [topicKey(0, hash(1))], [topicKey(2, to(7))]])).toEqual(['3:1'])
    expect(rows(0n, 2n, [[topicKey(2, to(7))]])).toEqual([])
    // Alternatives of one criterion: either recipient.
    expect(rows(0n, 5n, [[topicKey(2, to(7)), topicKey(2, to(1))]])).toEqual(['1:0', '3:1'])
    // A topic is keyed by its position: recipient 7 at position 1 is not there.
    expect(rows(0n, 5n, [[topicKey(1, to(7))]])).toEqual([])
    const found = [...store.logRows(3n, 3n, [[topicKey(2, to(7))]])][0]!
    expect(found).toEqual({ number: 3n, index: 1, hash: hash(207), receipt: transferTo(7), firstLog: 1 })

    // Several alternatives are merged as read: in order, each transaction once.
    expect(rows(0n, 5n, [[topicKey(2, to(7)), topicKey(0, hash(1)), topicKey(2, to(3))]])).toEqual(all)

    store.truncate(2n)
    expect(rows(0n, 5n, [])).toEqual(all.slice(0, 6))
    expect(rows(0n, 5n, [[topicKey(2, to(7))]])).toEqual([])
    expect(store.locate(hash(207))).toBeUndefined()
    expect(store.numberOf(hash(53))).toBeUndefined()
    store.replace({ number: 0n, hash: hash(60), rlp: blockRlp(0), receipts: [transferTo(1), transferTo(2)], senders }, emptyDiff())
    expect(rows(0n, 5n, [[addressKey(token)]])).toEqual(['0:0', '0:1'])
  })

  test('a log query reads the index as it goes: a caller that stops at its cap has read no further', () => {
    // The database as the store sees it, counting the rows each statement's iterator hands out.
    const db = openDatabase({})
    let read = 0
    const bound = <T extends object>(target: T, property: string | symbol) => {
      const value = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    }
    const counted = (rows: Iterator<unknown>): IterableIterator<unknown> => ({
      [Symbol.iterator]() {
        return this
      },
      next() {
        const next = rows.next()
        if (next.done !== true) read++
        return next
      },
      return: (value?: unknown) => rows.return?.(value) ?? { done: true, value },
    })
    const counting = new Proxy(db, {
      get: (target, property) =>
        property !== 'prepare'
          ? bound(target, property)
          : (sql: string) =>
              new Proxy(target.prepare(sql), {
                get: (statement, name) => (name !== 'iterate' ? bound(statement, name) : (...args: never[]) => counted(statement.iterate(...args))),
              }),
    })
    const store = openChainStore(counting)
    const token = `0x${'aa'.repeat(20)}` as Hex
    const logs = [{ address: token, topics: [hash(1)], data: '0x' as Hex }]
    const logging: Receipt = { ...transfer, logs, logsBloom: logsBloomOf(logs) }
    for (let number = 0; number < 50; number++) {
      store.writeBlock(
        {
          number: BigInt(number),
          hash: hash(300 + number),
          rlp: blockRlp(number),
          receipts: [logging, logging],
          senders,
          transactionHashes: [hash(1000 + 2 * number), hash(1001 + 2 * number)],
        },
        emptyDiff(),
      )
    }
    for (const criteria of [[[addressKey(token)]], [[addressKey(token), topicKey(0, hash(1))]], []]) {
      read = 0
      const first = store.logRows(0n, 49n, criteria)[Symbol.iterator]().next()
      expect(first.value).toMatchObject({ number: 0n, index: 0 })
      // A row or two of each cursor (the next one is read ahead): not the 100 transactions of the range.
      expect(read).toBeLessThanOrEqual((criteria[0]?.length ?? 0) + 1)
    }
  })

  describe('how blocks are kept', () => {
    const oldSchema = (db: DatabaseSync) => {
      db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID')
      db.exec(
        'CREATE TABLE blocks (number INTEGER PRIMARY KEY, hash BLOB NOT NULL, rlp BLOB NOT NULL, receipts TEXT NOT NULL, senders BLOB NOT NULL)',
      )
    }
    const packed = Uint8Array.from(senders.flatMap((sender) => [...hexToBytes(sender)]))

    test('a store that kept blocks whole, deflated or not, is split into rows once, and reads as it did', () => {
      const db = openDatabase({})
      oldSchema(db)
      db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('block_encoding', 'rlp-or-deflated-1')
      const insert = db.prepare('INSERT INTO blocks (number, hash, rlp, receipts, senders) VALUES (?, ?, ?, ?, ?)')
      insert.run(0, hexToBytes(hash(50)), Uint8Array.of(0xc4, 0xc0, 0xc0, 0xc0, 0xc0), '[]', new Uint8Array(0))
      // Block 1 as it was kept whole, its receipts one JSON array, the empty bloom written out.
      const receiptsJson = JSON.stringify([
        { ...logged, cumulativeGasUsed: '0xea60', gasUsed: '0x9858', effectiveGasPrice: '0x7' },
        { ...transfer, cumulativeGasUsed: '0x5208', gasUsed: '0x5208', effectiveGasPrice: '0x7', logsBloom: EMPTY_BLOOM },
      ])
      insert.run(1, hexToBytes(hash(51)), encodeStoredBlock(blockRlp(1)), receiptsJson, packed)
      const lines: string[] = []
      const store = openChainStore(db, (line) => lines.push(line))
      expect(lines).toEqual([expect.stringMatching(/^rewrote the store's 2 blocks as rows, once \(\d+ ms\)$/)])
      expect(store.block(1n)).toEqual({ number: 1n, rlp: blockRlp(1), receipts: [logged, transfer], senders })
      expect(store.block(0n)).toEqual({ number: 0n, rlp: Uint8Array.of(0xc4, 0xc0, 0xc0, 0xc0, 0xc0), receipts: [], senders: [] })
      expect(store.transaction(legacyHash)).toMatchObject({ number: 1n, index: 1, sender: senders[1], firstLog: 1 })
      expect([...store.logRows(0n, 1n, [[addressKey(logged.logs[0]!.address)]])].map((row) => row.hash)).toEqual([txHash(typed)])
      expect(store.numberOf(hash(51))).toBe(1n)
      expect(db.prepare("SELECT value FROM meta WHERE key = 'block_encoding'").get()).toEqual({ value: 'rows-3' })
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'blocks_kept_whole'").get()).toBeUndefined()
      // Opened again, nothing is rewritten.
      openChainStore(db, (line) => lines.push(line))
      expect(lines).toHaveLength(1)
    })

    test('error: a store whose blocks cannot be split is left as it was', () => {
      const db = openDatabase({})
      oldSchema(db)
      db.prepare('INSERT INTO blocks (number, hash, rlp, receipts, senders) VALUES (?, ?, ?, ?, ?)').run(
        0,
        new Uint8Array(32),
        Uint8Array.of(0x01),
        '[]',
        new Uint8Array(0),
      )
      expect(() => openChainStore(db)).toThrow()
      expect(db.prepare('SELECT COUNT(*) AS n FROM blocks').get()).toEqual({ n: 1 })
      expect((db.prepare('SELECT name FROM pragma_table_info(?)').all('blocks') as { name: string }[]).map((column) => column.name)).toContain(
        'receipts',
      )
    })

    test("error: a store that keeps its blocks in a way this flashchain does not read (a newer one's) is refused", () => {
      const db = openDatabase({})
      db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID')
      db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('block_encoding', 'something-newer')
      expect(() => openChainStore(db)).toThrow(StoreDamagedError)
      expect(() => openChainStore(db)).toThrow(
        'this store keeps its blocks as something-newer, which a newer flashchain wrote; this one reads rows-3',
      )
    })
  })
})

describe('rewind', () => {
  const account = (balance: bigint) => ({ nonce: 0n, balance, codeHash: new Uint8Array(32), storageRoot: new Uint8Array(32) })
  const diffOf = (address: Hex, balance: bigint) => ({ accounts: new Map([[address, account(balance)]]), storage: new Map(), code: new Map() })
  const alice = `0x${'a1'.repeat(20)}` as Hex
  const block = (number: bigint) => ({
    number,
    hash: hash(Number(number) + 100),
    rlp: RLP.encode([[Uint8Array.of(Number(number))], [], []]),
    receipts: [],
    senders: [],
    transactionHashes: [],
  })
  /** The numbers of the blocks the store holds, in order. */
  const storedNumbers = (store: ReturnType<typeof openChainStore>) => {
    const numbers: bigint[] = []
    for (let n = 0n; n <= (store.head() ?? -1n); n++) if (store.block(n) !== undefined) numbers.push(n)
    return numbers
  }
  /** Alice's balance at each block, as a restart reads the store: the head's from memory, the others' from the rows. */
  const balances = (store: ReturnType<typeof openChainStore>) => {
    const history = createStateHistory()
    store.loadState(history)
    return Array.from({ length: Number(store.head()!) + 1 }, (_, n) => history.at(BigInt(n)).account(alice)!.balance)
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
    expect(storedNumbers(store)).toEqual([0n, 1n])
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
    expect(storedNumbers(store)).toEqual([0n, 1n])
    expect(balances(store)).toEqual([1n, 2n])
  })

  test("a reset forgets block 0's writes too, and writes the genesis state again", () => {
    const store = openChainStore(openDatabase({}))
    store.writeBlock(block(0n), diffOf(alice, 1n))
    store.writeEdit(0n, diffOf(alice, 5n))
    store.writeBlock(block(1n), diffOf(alice, 2n))
    store.rewind(0n, { genesis: diffOf(alice, 1n) }, [])
    expect(storedNumbers(store)).toEqual([0n])
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
    expect(storedNumbers(store)).toEqual(Array.from({ length: 22 }, (_, i) => BigInt(i)))
    // Block 0's two accounts, then blocks 1 to 21 with the edits of blocks 7, 14 and 21.
    expect(balances(store)).toEqual([1n, ...Array.from({ length: 21 }, (_, i) => ([7, 14, 21].includes(i + 1) ? 1001n + BigInt(i) : 2n + BigInt(i)))])
    // What comes next is written after what was kept, and truncating again past the head forgets nothing.
    store.writeBlock(block(22n), diffOf(alice, 99n))
    store.truncate(30n)
    expect(balances(store).at(-1)).toBe(99n)
    store.truncate(0n)
    expect(balances(store)).toEqual([1n])
    expect(storedNumbers(store)).toEqual([0n])
  })
})
