import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { keccak256 } from '../crypto/keccak.ts'
import { createStateHistory } from '../state/history.ts'
import { openChainStore } from './chainStore.ts'
import { StoreDamagedError, openDatabase } from './database.ts'
import { decodeRecordHex, encodeRecord } from './stateRows.ts'

import type { AccountRecord, StateDiff } from '../state/types.ts'
import type { ChainStore } from './chainStore.ts'
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
  test('a record read back from its hex is the record written, with the two common hashes shared', () => {
    for (const record of [eoa(0n), eoa(1n), eoa(255n), contract, { ...contract, nonce: 0n, balance: 0n }]) {
      const read = decodeRecordHex(upperHex(encodeRecord(record)))
      expect(read).toEqual(record)
    }
    // A contract's record is over 55 bytes, an RLP list with a long prefix.
    expect(encodeRecord(contract)[0]).toBeGreaterThan(0xf7)
    const read = decodeRecordHex(upperHex(encodeRecord(eoa(7n))))
    expect(read.codeHash).toBe(KECCAK256_NULL)
    expect(read.storageRoot).toBe(KECCAK256_RLP)
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

  test('error: state rows out of block order are refused as a damaged store, never replayed out of order', () => {
    const db = openDatabase({})
    const store = openChainStore(db)
    const written = diff()
    written.accounts.set(address(1), eoa(1n))
    for (const number of [0n, 1n]) writeBlock(store, number, written)
    db.exec('UPDATE accounts SET block = 5 WHERE rowid = (SELECT MIN(rowid) FROM accounts)')
    expect(() => store.loadState(createStateHistory())).toThrow(StoreDamagedError)
  })
})
