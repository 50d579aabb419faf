import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_NULL, KECCAK256_RLP, bigIntToUnpaddedBytes, hexToBytes } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { keccak256 } from '../crypto/keccak.ts'
import { createStateHistory } from '../state/history.ts'
import { openChainStore } from './chainStore.ts'
import { StoreDamagedError, openDatabase } from './database.ts'
import { decodeRecordHex, encodeRecord } from './stateRows.ts'

import type { AccountRecord, StateDiff } from '../state/types.ts'
import type { ChainStore, StoreMark } from './chainStore.ts'
import type { Hex } from '../../hex.ts'

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Hex
const slot = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex
const upperHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex').toUpperCase()
const eoa = (balance: bigint): AccountRecord => ({ nonce: 1n, balance, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_RLP })
const contract: AccountRecord = {
  nonce: 2n ** 40n + 3n,
  balance: 2n ** 255n + 1n,
  codeHash: keccak256(Uint8Array.of(1)),
  storageRoot: keccak256(Uint8Array.of(2)),
}
const diff = (): StateDiff => ({ accounts: new Map(), storage: new Map(), code: new Map() })

/** Block `number` (a stand-in body with no transactions) with these state writes. */
function writeBlock(store: ChainStore, number: bigint, written: StateDiff) {
  const rlp = RLP.encode([[Uint8Array.of(Number(number))], [], []])
  store.writeBlock({ number, hash: slot(1000 + Number(number)), rlp, receipts: [], senders: [], transactionHashes: [] }, written)
}

describe('state rows', () => {
  const records = [eoa(0n), eoa(1n), eoa(255n), contract, { ...contract, nonce: 0n, balance: 0n }, { ...eoa(2n ** 256n - 1n), nonce: 2n ** 64n }]

  test('a record read back from its hex is the record written, with the two common hashes shared', () => {
    for (const record of records) expect(decodeRecordHex(upperHex(encodeRecord(record)))).toEqual(record)
    const read = decodeRecordHex(upperHex(encodeRecord(eoa(7n))))
    expect(read.codeHash).toBe(KECCAK256_NULL)
    expect(read.storageRoot).toBe(KECCAK256_RLP)
    // Flags, the nonce's length and byte, the balance's length and byte: no hash.
    expect(encodeRecord(eoa(7n))).toEqual(Uint8Array.of(0x03, 1, 1, 1, 7))
  })

  test("a record that keeps its address's previous code hash leaves it out, and is read back with it", () => {
    const rootChanged = { ...contract, storageRoot: keccak256(Uint8Array.of(3)) }
    const record = encodeRecord(rootChanged, contract.codeHash)
    // Flags, the nonce and the balance, the storage root: an empty block's system contract took 70 bytes as RLP.
    expect(record).toHaveLength(1 + 1 + 6 + 1 + 32 + 32)
    expect(encodeRecord({ ...rootChanged, nonce: 0n, balance: 0n }, contract.codeHash)).toHaveLength(35)
    expect(decodeRecordHex(upperHex(record), () => contract.codeHash)).toEqual(rootChanged)
    // Another code hash, or none before, is written out.
    expect(encodeRecord(rootChanged, keccak256(Uint8Array.of(9)))).toHaveLength(record.length + 32)
    expect(decodeRecordHex(upperHex(encodeRecord(rootChanged)))).toEqual(rootChanged)
    expect(() => decodeRecordHex(upperHex(record), () => undefined)).toThrow(StoreDamagedError)
  })

  test('a record in the older form, an RLP list, is read as it was written', () => {
    for (const record of records) {
      const rlp = RLP.encode([bigIntToUnpaddedBytes(record.nonce), bigIntToUnpaddedBytes(record.balance), record.storageRoot, record.codeHash])
      expect(rlp[0]).toBeGreaterThanOrEqual(0xc0)
      expect(decodeRecordHex(upperHex(rlp))).toEqual(record)
    }
    expect(decodeRecordHex(upperHex(RLP.encode([Uint8Array.of(1), Uint8Array.of(7), KECCAK256_RLP, KECCAK256_NULL]))).codeHash).toBe(KECCAK256_NULL)
  })

  test('error: a record longer or shorter than its fields, or with flags no flashchain writes, is a damaged store', () => {
    const record = upperHex(encodeRecord(contract))
    expect(() => decodeRecordHex(`${record}00`)).toThrow(StoreDamagedError)
    expect(() => decodeRecordHex(record.slice(0, -2))).toThrow(StoreDamagedError)
    for (const flags of ['08', 'BB', '06'])
      expect(() => decodeRecordHex(`${flags}${upperHex(encodeRecord(eoa(7n))).slice(2)}`)).toThrow(StoreDamagedError)
  })

  test('a balance past 2^256 - 1 is kept as the state holds it; error: one past 255 bytes is refused, not stored cut', () => {
    const over = { ...eoa(0n), balance: 2n ** 256n }
    expect(encodeRecord(over)).toHaveLength(3 + 1 + 33)
    expect(decodeRecordHex(upperHex(encodeRecord(over)))).toEqual(over)
    expect(encodeRecord({ ...eoa(0n), balance: 2n ** 2040n - 1n })).toHaveLength(3 + 1 + 255)
    expect(() => encodeRecord({ ...eoa(0n), balance: 2n ** 2040n })).toThrow(RangeError)
  })

  test('a restart reads every block of state back as it was written: accounts, deletions, clears, slots and code', () => {
    const store = openChainStore(openDatabase({}))
    const block = (number: bigint, written: StateDiff) => writeBlock(store, number, written)

    const zero = diff()
    zero.accounts.set(address(1), eoa(10n))
    zero.accounts.set(address(2), contract)
    zero.code.set(slot(77), Uint8Array.of(0x60, 0x00))
    zero.storage.set(address(2), {
      cleared: false,
      slots: new Map([
        [slot(1), Uint8Array.of(0x80, 0xff)],
        [slot(2), Uint8Array.of(5)],
      ]),
    })
    block(0n, zero)
    const one = diff()
    one.accounts.set(address(1), null)
    one.storage.set(address(2), { cleared: true, slots: new Map([[slot(2), Uint8Array.of(6)]]) })
    block(1n, one)
    const two = diff()
    two.accounts.set(address(1), eoa(3n))
    two.storage.set(address(2), { cleared: false, slots: new Map([[slot(2), new Uint8Array(0)]]) })
    block(2n, two)
    // An edit of block 2 after its writes: its rows come after them.
    const edit = diff()
    edit.accounts.set(address(3), eoa(4n))
    store.writeEdit(2n, edit)

    const history = createStateHistory()
    store.loadState(history)
    const [at0, at1, at2] = [history.at(0n), history.at(1n), history.at(2n)]
    expect(at0.account(address(1))).toEqual(eoa(10n))
    expect(at0.account(address(2))).toEqual(contract)
    expect(at0.storage(address(2), slot(1))).toEqual(Uint8Array.of(0x80, 0xff))
    expect(at0.code(slot(77))).toEqual(Uint8Array.of(0x60, 0x00))
    expect(at1.account(address(1))).toBeUndefined()
    expect(at1.storage(address(2), slot(1))).toEqual(new Uint8Array(0))
    expect(at1.storage(address(2), slot(2))).toEqual(Uint8Array.of(6))
    expect(at2.account(address(1))).toEqual(eoa(3n))
    expect(at2.storage(address(2), slot(2))).toEqual(new Uint8Array(0))
    expect(at2.account(address(3))).toEqual(eoa(4n))
    expect(at1.account(address(3))).toBeUndefined()
  })

  test("a contract's records keep its code hash across blocks, edits, a deletion and rewinds, and a restart reads each", () => {
    const db = openDatabase({})
    const store = openChainStore(db)
    const root = (n: number) => keccak256(Uint8Array.of(n))
    const other = keccak256(Uint8Array.of(0xee))
    const at = (codeHash: Uint8Array, n: number): AccountRecord => ({ ...contract, codeHash, storageRoot: root(n) })
    const writes: [bigint, AccountRecord | null][] = [
      [0n, at(contract.codeHash, 0)],
      [1n, at(contract.codeHash, 1)],
      [2n, null],
      [3n, at(other, 3)],
      [4n, at(contract.codeHash, 4)],
    ]
    let mark: StoreMark | undefined
    for (const [number, record] of writes) {
      if (number === 4n) mark = store.mark()
      const written = diff()
      written.accounts.set(address(9), record)
      writeBlock(store, number, written)
    }
    // Block 1 kept the code hash before it; block 3's followed a deletion, and block 4's changed it.
    const lengths = () => (db.prepare('SELECT length(record) AS n FROM accounts ORDER BY rowid').all() as { n: number | null }[]).map((row) => row.n)
    expect(lengths()).toEqual([105, 73, null, 105, 105])
    // A rewind to block 3 forgets block 4's row, and the code hash written with it: block 4 written again with that
    // code hash writes it out, since the row before it now holds another.
    store.rewind(3n, { mark: mark! }, [])
    const again = diff()
    again.accounts.set(address(9), at(contract.codeHash, 5))
    writeBlock(store, 4n, again)
    const edit = diff()
    edit.accounts.set(address(9), at(contract.codeHash, 6))
    store.writeEdit(4n, edit)
    expect(lengths()).toEqual([105, 73, null, 105, 105, 73])

    const history = createStateHistory()
    store.loadState(history)
    expect(history.at(0n).account(address(9))).toEqual(at(contract.codeHash, 0))
    expect(history.at(1n).account(address(9))).toEqual(at(contract.codeHash, 1))
    expect(history.at(2n).account(address(9))).toBeUndefined()
    expect(history.at(3n).account(address(9))).toEqual(at(other, 3))
    expect(history.at(4n).account(address(9))).toEqual(at(contract.codeHash, 6))
  })

  test("a write that rolls back leaves no code hash behind for the contract's next record to keep", () => {
    const root = (n: number) => keccak256(Uint8Array.of(n))
    const [x, y] = [keccak256(Uint8Array.of(0x0a)), keccak256(Uint8Array.of(0x0b))]
    const record = (codeHash: Uint8Array, n: number): AccountRecord => ({ ...contract, codeHash, storageRoot: root(n) })
    const failing = (db: ReturnType<typeof openDatabase>, write: () => void) => {
      // A failure after the account's row, in the same transaction, as a full disk would make it.
      db.exec("CREATE TRIGGER fail BEFORE INSERT ON storage BEGIN SELECT RAISE(ABORT, 'disk full'); END")
      expect(write).toThrow('disk full')
      db.exec('DROP TRIGGER fail')
    }
    const withSlot = (address: Hex, account: AccountRecord) => {
      const written = diff()
      written.accounts.set(address, account)
      written.storage.set(address, { cleared: false, slots: new Map([[slot(1), Uint8Array.of(1)]]) })
      return written
    }
    const only = (address: Hex, account: AccountRecord) => {
      const written = diff()
      written.accounts.set(address, account)
      return written
    }

    // An edit that rolled back would have left the code hash it tried to write: the next record would keep it.
    const db = openDatabase({})
    const store = openChainStore(db)
    writeBlock(store, 0n, only(address(9), record(x, 0)))
    writeBlock(store, 1n, only(address(9), record(y, 1)))
    failing(db, () => store.writeEdit(1n, withSlot(address(9), record(x, 2))))
    writeBlock(store, 2n, only(address(9), record(x, 3)))
    // A contract's first record rolled back: the next one cannot keep a hash no row holds.
    failing(db, () => writeBlock(store, 3n, withSlot(address(8), record(x, 4))))
    writeBlock(store, 3n, only(address(8), record(x, 5)))

    const history = createStateHistory()
    store.loadState(history)
    expect(history.at(2n).account(address(9))).toEqual(record(x, 3))
    expect(history.at(3n).account(address(8))).toEqual(record(x, 5))
  })

  test('slot keys are kept without their leading zero bytes, and rows of the older form (all 32) are read beside them', () => {
    const db = openDatabase({})
    const store = openChainStore(db)
    const written = diff()
    const high = `0x${'ab'.repeat(32)}` as Hex
    written.storage.set(address(2), {
      cleared: false,
      slots: new Map([
        [slot(0), Uint8Array.of(1)],
        [slot(0x1f4e), Uint8Array.of(2)],
        [high, Uint8Array.of(3)],
      ]),
    })
    writeBlock(store, 0n, written)
    expect(db.prepare('SELECT length(slot) AS n FROM storage ORDER BY rowid').all()).toEqual([{ n: 0 }, { n: 2 }, { n: 32 }])
    // A row as a store before this encoding wrote it: the key's 32 bytes.
    db.prepare('INSERT INTO storage (block, address, slot, value) VALUES (?, ?, ?, ?)').run(
      0,
      hexToBytes(address(2)),
      hexToBytes(slot(5)),
      Uint8Array.of(4),
    )

    const history = createStateHistory()
    store.loadState(history)
    const state = history.at(0n)
    expect([slot(0), slot(0x1f4e), high, slot(5)].map((key) => state.storage(address(2), key))).toEqual([1, 2, 3, 4].map((n) => Uint8Array.of(n)))
    expect(state.storage(address(2), slot(0x4e))).toEqual(new Uint8Array(0))
  })

  test('error: state rows out of block order are refused as a damaged store when an older block is read, never read out of order', () => {
    const db = openDatabase({})
    const store = openChainStore(db)
    const written = diff()
    written.accounts.set(address(1), eoa(1n))
    written.storage.set(address(1), { cleared: false, slots: new Map([[slot(1), Uint8Array.of(1)]]) })
    for (const number of [0n, 1n, 2n]) writeBlock(store, number, written)
    db.exec('UPDATE accounts SET block = 2 WHERE rowid = (SELECT MIN(rowid) FROM accounts)')
    db.exec('UPDATE storage SET block = 2 WHERE rowid = (SELECT MIN(rowid) FROM storage)')
    const history = createStateHistory()
    store.loadState(history)
    expect(history.at(2n).account(address(1))).toEqual(eoa(1n))
    expect(() => history.at(1n).account(address(1))).toThrow(StoreDamagedError)
    expect(() => history.at(1n).storage(address(1), slot(1))).toThrow(StoreDamagedError)
  })
})
