import { Account, createAddressFromString } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { AccessRecorder, FlashblockAccesses } from '../state/accesses.ts'
import { FlatStateManager } from '../state/stateManager.ts'
import { recording } from './building.ts'

import type { StateReader } from '../state/types.ts'

const empty: StateReader = { account: () => undefined, storage: () => new Uint8Array(0), code: () => undefined }
const bob = createAddressFromString('0x00000000000000000000000000000000000000b0')

describe('recording a run', () => {
  test('a run that throws leaves no recorder on the state manager, and nothing of what it saw', async () => {
    const stateManager = new FlatStateManager(empty)
    const recorder = new AccessRecorder()
    const failing = async () => {
      await stateManager.putAccount(bob, new Account(0n, 5n))
      throw new Error('the run failed')
    }
    await expect(recording({ stateManager, recorder }, failing)).rejects.toThrow('the run failed')
    expect(stateManager.recorder).toBeUndefined()
    const accesses = new FlashblockAccesses()
    recorder.end(1, stateManager.current(), accesses)
    expect(accesses.list()).toEqual([])
  })

  test('a run that succeeds leaves no recorder behind, and what it saw waits for the end of its transaction', async () => {
    const stateManager = new FlatStateManager(empty)
    const recorder = new AccessRecorder()
    await recording({ stateManager, recorder }, () => stateManager.putAccount(bob, new Account(0n, 5n)))
    expect(stateManager.recorder).toBeUndefined()
    const accesses = new FlashblockAccesses()
    recorder.end(1, stateManager.current(), accesses)
    expect(accesses.list()).toEqual([
      { address: bob.toString(), storageChanges: [], storageReads: [], balanceChanges: [[1, 5n]], nonceChanges: [], codeChanges: [] },
    ])
  })

  test('without a recorder the run runs as it is', async () => {
    const stateManager = new FlatStateManager(empty)
    expect(await recording({ stateManager, recorder: undefined }, async () => 7)).toBe(7)
    expect(stateManager.recorder).toBeUndefined()
  })
})
