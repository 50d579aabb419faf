import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, describe, expect, test } from 'vitest'

import { openChainStore, openDatabase } from './store.ts'

import type { Hex } from './state/types.ts'

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
    expect(store.poolTransactions()).toEqual([raw(3), raw(1), raw(2)])
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
    expect(after.poolTransactions()).toEqual([raw(1), raw(3), raw(4)])
    second.close()
  })
})
