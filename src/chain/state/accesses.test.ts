import { Account, KECCAK256_NULL, bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { keccak256 } from '../crypto/keccak.ts'
import { AccessRecorder, FlashblockAccesses } from './accesses.ts'
import { createOverlay } from './overlay.ts'
import { FlatStateManager } from './stateManager.ts'
import { createStateDiff } from './types.ts'

import type { StateReader } from './types.ts'
import type { Hex } from '../../hex.ts'

const alice = createAddressFromString('0x00000000000000000000000000000000000000a1')
const bob = createAddressFromString('0x00000000000000000000000000000000000000b0')
const carol = createAddressFromString('0x00000000000000000000000000000000000000c0')
const slot = (n: number) => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`)
const slotHex = (n: number) => bytesToHex(slot(n)) as Hex
const empty: StateReader = { account: () => undefined, storage: () => new Uint8Array(0), code: () => undefined }

/** A base where alice has 100 wei, nonce 1, and slots 1 = 0x11, 2 = 0x22; carol has 9 wei. */
function base(): StateReader {
  const diff = createStateDiff()
  diff.accounts.set(alice.toString(), { nonce: 1n, balance: 100n, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_NULL })
  diff.accounts.set(carol.toString(), { nonce: 0n, balance: 9n, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_NULL })
  diff.storage.set(alice.toString(), {
    cleared: false,
    slots: new Map<Hex, Uint8Array>([
      [slotHex(1), hexToBytes('0x11')],
      [slotHex(2), hexToBytes('0x22')],
    ]),
  })
  return createOverlay(diff, empty)
}

/** A state manager with a recorder set, as the producer sets one around a transaction, and the list it adds to. */
function recording() {
  const state = new FlatStateManager(base())
  const recorder = new AccessRecorder()
  const accesses = new FlashblockAccesses()
  state.recorder = recorder
  const end = (index: number) => recorder.end(index, state.current(), accesses)
  return { state, recorder, accesses, end }
}

describe('the access list of a flashblock', () => {
  test('changes are listed at their index with the value after them; what was only read is listed without changes', async () => {
    const { state, accesses, end } = recording()
    // Transaction 0 (index 1): alice pays bob 30 and bumps her nonce, writes slot 1 and reads slot 2.
    await state.putAccount(alice, new Account(2n, 70n))
    await state.putAccount(bob, new Account(0n, 30n))
    await state.putStorage(alice, slot(1), hexToBytes('0x99'))
    await state.getStorage(alice, slot(2))
    await state.getAccount(carol)
    end(1)
    // Transaction 1 (index 2): slot 1 changes again; bob deploys code.
    await state.putStorage(alice, slot(1), hexToBytes('0x01'))
    const code = hexToBytes('0x6000')
    await state.putCode(bob, code)
    end(2)

    const [a, b, c] = accesses.list()
    expect(a).toEqual({
      address: alice.toString(),
      storageChanges: [
        [
          slotHex(1),
          [
            [1, hexToBytes('0x99')],
            [2, hexToBytes('0x01')],
          ],
        ],
      ],
      storageReads: [slotHex(2)],
      balanceChanges: [[1, 70n]],
      nonceChanges: [[1, 2n]],
      codeChanges: [],
    })
    expect(b).toEqual({
      address: bob.toString(),
      storageChanges: [],
      storageReads: [],
      balanceChanges: [[1, 30n]],
      nonceChanges: [],
      codeChanges: [[2, code]],
    })
    expect(state.current().account(bob.toString())?.codeHash).toEqual(keccak256(code))
    // Read only: listed, with no changes.
    expect(c).toEqual({ address: carol.toString(), storageChanges: [], storageReads: [], balanceChanges: [], nonceChanges: [], codeChanges: [] })
  })

  test('a slot written back to its value before the transaction is a read; a write a revert took back is no change', async () => {
    const { state, accesses, end } = recording()
    await state.putStorage(alice, slot(1), hexToBytes('0x55'))
    await state.putStorage(alice, slot(1), hexToBytes('0x11'))
    await state.checkpoint()
    await state.putAccount(alice, new Account(1n, 1n))
    await state.putStorage(alice, slot(2), hexToBytes('0x77'))
    await state.revert()
    end(1)
    expect(accesses.list()).toEqual([
      {
        address: alice.toString(),
        storageChanges: [],
        storageReads: [slotHex(1), slotHex(2)],
        balanceChanges: [],
        nonceChanges: [],
        codeChanges: [],
      },
    ])
  })

  test('a slot read in one transaction and changed in another is listed as changed only', async () => {
    const { state, accesses, end } = recording()
    await state.getStorage(alice, slot(1))
    end(1)
    await state.putStorage(alice, slot(1), hexToBytes('0x12'))
    end(2)
    const [entry] = accesses.list()
    expect(entry?.storageReads).toEqual([])
    expect(entry?.storageChanges).toEqual([[slotHex(1), [[2, hexToBytes('0x12')]]]])
  })

  test('a destroyed account keeps only its balance going to zero; its slots are reads', async () => {
    const { state, accesses, end } = recording()
    await state.getStorage(alice, slot(1))
    await state.deleteAccount(alice)
    end(1)
    expect(accesses.list()).toEqual([
      { address: alice.toString(), storageChanges: [], storageReads: [slotHex(1)], balanceChanges: [[1, 0n]], nonceChanges: [], codeChanges: [] },
    ])
  })

  test('a run that did not become part of the block leaves nothing', async () => {
    const { state, recorder, accesses, end } = recording()
    await state.putAccount(bob, new Account(0n, 1n))
    recorder.discard()
    await state.getAccount(carol)
    end(1)
    expect(accesses.list().map(({ address }) => address)).toEqual([carol.toString()])
  })

  test('addresses and slots are in ascending order', async () => {
    const { state, accesses, end } = recording()
    await state.getAccount(carol)
    await state.getStorage(alice, slot(2))
    await state.getAccount(bob)
    await state.getStorage(alice, slot(1))
    end(1)
    const list = accesses.list()
    expect(list.map(({ address }) => address)).toEqual([alice, bob, carol].map(String))
    expect(list[0]?.storageReads).toEqual([slotHex(1), slotHex(2)])
  })

  test('once the recorder is taken off, the state manager shows it nothing more', async () => {
    const { state, recorder, accesses } = recording()
    await state.getAccount(carol)
    state.recorder = undefined
    await state.putAccount(bob, new Account(0n, 1n))
    await state.putStorage(alice, slot(1), hexToBytes('0x05'))
    recorder.end(1, state.current(), accesses)
    expect(accesses.list().map(({ address }) => address)).toEqual([carol.toString()])
  })

  test('an address left out is not listed, whatever the run did to it', async () => {
    const { state, recorder, accesses } = recording()
    await state.putAccount(bob, new Account(0n, 1n))
    await state.getAccount(carol)
    recorder.end(0, state.current(), accesses, bob.toString())
    expect(accesses.list().map(({ address }) => address)).toEqual([carol.toString()])
  })
})
