import { Account, KECCAK256_NULL, bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { createOverlay } from './overlay.ts'
import { FlatStateManager } from './stateManager.ts'
import { createStateDiff } from './types.ts'

import type { StateReader } from './types.ts'
import type { Hex } from '../../hex.ts'

const alice = createAddressFromString('0x00000000000000000000000000000000000000a1')
const bob = createAddressFromString('0x00000000000000000000000000000000000000b0')
const slot = (n: number) => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`)
const empty: StateReader = { account: () => undefined, storage: () => new Uint8Array(0), code: () => undefined }

/** A base where alice has 100 wei, nonce 1, and slots 1 = 0x11, 2 = 0x22. */
function base(): StateReader {
  const diff = createStateDiff()
  diff.accounts.set(alice.toString(), { nonce: 1n, balance: 100n, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_NULL })
  diff.storage.set(alice.toString(), {
    cleared: false,
    slots: new Map<Hex, Uint8Array>([
      [bytesToHex(slot(1)) as Hex, hexToBytes('0x11')],
      [bytesToHex(slot(2)) as Hex, hexToBytes('0x22')],
    ]),
  })
  return createOverlay(diff, empty)
}

async function balance(state: FlatStateManager, who = alice) {
  return (await state.getAccount(who))?.balance
}
async function storage(state: FlatStateManager, n: number, who = alice) {
  return bytesToHex(await state.getStorage(who, slot(n)))
}

describe('FlatStateManager', () => {
  test('default: reads fall through to the base until written', async () => {
    const state = new FlatStateManager(base())
    expect(await balance(state)).toBe(100n)
    expect(await storage(state, 1)).toBe('0x11')
    await state.putAccount(alice, new Account(1n, 7n))
    await state.putStorage(alice, slot(1), hexToBytes('0x0099'))
    expect(await balance(state)).toBe(7n)
    // Stored without leading zeros, as the trie keeps it.
    expect(await storage(state, 1)).toBe('0x99')
    expect(await state.getAccount(bob)).toBeUndefined()
  })

  test('a revert undoes every write since its checkpoint, also writes of inner checkpoints that committed', async () => {
    const state = new FlatStateManager(base())
    await state.checkpoint()
    await state.putAccount(alice, new Account(1n, 50n))
    await state.checkpoint()
    await state.putStorage(alice, slot(1), hexToBytes('0x01'))
    await state.putAccount(bob, new Account(0n, 5n))
    await state.checkpoint()
    await state.putStorage(alice, slot(3), hexToBytes('0x03'))
    await state.commit()
    expect(await storage(state, 3)).toBe('0x03')
    await state.revert()
    expect(await storage(state, 1)).toBe('0x11')
    expect(await storage(state, 3)).toBe('0x')
    expect(await state.getAccount(bob)).toBeUndefined()
    expect(await balance(state)).toBe(50n)
    await state.revert()
    expect(await balance(state)).toBe(100n)
    expect(state.writes().accounts.size + state.writes().storage.size).toBe(0)
  })

  test('a wiped account reads as empty, and a revert brings back its account and storage', async () => {
    const state = new FlatStateManager(base())
    await state.putStorage(alice, slot(2), hexToBytes('0x2222'))
    await state.checkpoint()
    await state.deleteAccount(alice)
    expect(await state.getAccount(alice)).toBeUndefined()
    expect(await storage(state, 1)).toBe('0x')
    await state.putStorage(alice, slot(1), hexToBytes('0x01'))
    expect(await storage(state, 1)).toBe('0x01')
    expect(await storage(state, 2)).toBe('0x')
    await state.revert()
    expect(await balance(state)).toBe(100n)
    expect(await storage(state, 1)).toBe('0x11')
    expect(await storage(state, 2)).toBe('0x2222')
  })

  test('clearStorage wipes only storage; a commit keeps it', async () => {
    const state = new FlatStateManager(base())
    await state.checkpoint()
    await state.clearStorage(alice)
    await state.commit()
    expect(await storage(state, 1)).toBe('0x')
    expect(await balance(state)).toBe(100n)
    expect(state.writes().storage.get(alice.toString())?.cleared).toBe(true)
  })

  test('code is read by hash from the writes, then the base', async () => {
    const state = new FlatStateManager(base())
    const code = hexToBytes('0x6001600055')
    await state.checkpoint()
    await state.putCode(bob, code)
    expect(await state.getCode(bob)).toEqual(code)
    expect(await state.getCodeSize(bob)).toBe(5)
    await state.revert()
    expect(await state.getCode(bob)).toEqual(new Uint8Array(0))
    expect(state.writes().code.size).toBe(0)
  })

  test('publish moves the writes into the base; an open checkpoint stays balanced and cannot undo them', async () => {
    const state = new FlatStateManager(base())
    await state.checkpoint()
    await state.putAccount(alice, new Account(2n, 1n))
    const published = state.publish()
    expect(published.accounts.get(alice.toString())?.balance).toBe(1n)
    expect(state.writes().accounts.size).toBe(0)
    expect(state.base.account(alice.toString())?.balance).toBe(1n)
    await state.putAccount(bob, new Account(0n, 9n))
    await state.revert()
    expect(await balance(state)).toBe(1n)
    expect(await state.getAccount(bob)).toBeUndefined()
  })

  test('reset drops every write and checkpoint', async () => {
    const state = new FlatStateManager(base())
    await state.checkpoint()
    await state.putAccount(alice, new Account(1n, 3n))
    state.reset(empty)
    expect(await state.getAccount(alice)).toBeUndefined()
    await state.putAccount(alice, new Account(1n, 4n))
    await state.commit()
    expect(await balance(state)).toBe(4n)
  })
})
