import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'

import { afterAll, describe, expect, test, vi } from 'vitest'

import { RefusedError } from '../errors.ts'
import { openForkCache } from './cache.ts'

import type { Hex } from '../../hex.ts'

const dir = mkdtempSync(join(tmpdir(), 'flashchain-fork-cache-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const fork = { chainId: 1n, number: 10n, hash: `0x${'ab'.repeat(32)}` as Hex }
const endpoint = 'http://127.0.0.1:1/'
const address = `0x${'11'.repeat(20)}` as Hex
const account = { balance: 5n, nonce: 2n, code: '0x60' as Hex }

const slot = `0x${'00'.repeat(31)}07` as Hex

/** What another connection to the file reads of `address`'s account and `slot`: what is committed. */
const committed = (path: string) => {
  const db = new DatabaseSync(path)
  try {
    return {
      accounts: (db.prepare('SELECT COUNT(*) AS n FROM accounts WHERE address = ?').get(address) as { n: number }).n,
      slots: (db.prepare('SELECT value FROM storage WHERE address = ? AND slot = ?').all(address, slot) as { value: string }[]).map(
        (row) => row.value,
      ),
      answers: (db.prepare('SELECT answer FROM answers').all() as { answer: string }[]).map((row) => row.answer),
    }
  } finally {
    db.close()
  }
}

const versionOf = (path: string) => {
  const db = new DatabaseSync(path)
  try {
    return (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version
  } finally {
    db.close()
  }
}

describe('the fork cache schema version', () => {
  test('a new file is written at version 1, and what is put is read back', () => {
    const path = join(dir, 'new.sqlite')
    const cache = openForkCache({ path, fork, endpoint })
    cache.putAccount(address, account)
    cache.close()
    expect(versionOf(path)).toBe(1)
    const again = openForkCache({ path, fork, endpoint })
    expect(again.account(address)).toEqual(account)
    again.close()
  })

  test('a file written before versions (version 0, the same schema) keeps its answers and is marked version 1', () => {
    const path = join(dir, 'unversioned.sqlite')
    const before = openForkCache({ path, fork, endpoint })
    before.putAccount(address, account)
    before.close()
    const db = new DatabaseSync(path)
    db.exec('PRAGMA user_version = 0')
    db.close()
    const cache = openForkCache({ path, fork, endpoint })
    expect(cache.account(address)).toEqual(account)
    cache.close()
    expect(versionOf(path)).toBe(1)
  })

  test("a newer flashchain's file is refused, named, and left as it was", () => {
    const path = join(dir, 'newer.sqlite')
    const db = new DatabaseSync(path)
    db.exec('PRAGMA user_version = 2')
    db.close()
    const open = () => openForkCache({ path, fork, endpoint })
    expect(open).toThrow(RefusedError)
    expect(open).toThrow(`${path} is a fork cache of a newer flashchain (schema 2; this one reads 1): give another --fork-cache, or --no-fork-cache`)
    expect(versionOf(path)).toBe(2)
  })
})

describe('the fork cache commits a batch of answers at once, before anything goes on with them', () => {
  test('what is put is read back at once, and committed, all of it, before the code awaiting it goes on', async () => {
    const path = join(dir, 'turn.sqlite')
    const cache = openForkCache({ path, fork, endpoint })
    cache.putAccount(address, account)
    cache.putStorage(address, slot, 9n)
    cache.putAnswer('["eth_getBlockByNumber",["0x1",false]]', '{"number":"0x1"}')
    expect(cache.account(address)).toEqual(account)
    expect(cache.storage(address, slot)).toBe(9n)
    expect(cache.answer('["eth_getBlockByNumber",["0x1",false]]')).toBe('{"number":"0x1"}')
    expect(committed(path)).toEqual({ accounts: 0, slots: [], answers: [] })
    await Promise.resolve()
    expect(committed(path)).toEqual({ accounts: 1, slots: ['9'], answers: ['{"number":"0x1"}'] })
    expect(cache.storage(address, slot)).toBe(9n)
    cache.close()
  })

  test('closing commits what waits', () => {
    const path = join(dir, 'close.sqlite')
    const cache = openForkCache({ path, fork, endpoint })
    cache.putStorage(address, slot, 3n)
    cache.close()
    expect(committed(path).slots).toEqual(['3'])
  })

  test('answers that arrive once it is closed are dropped, and throw nowhere', async () => {
    const path = join(dir, 'late.sqlite')
    const cache = openForkCache({ path, fork, endpoint })
    cache.close()
    // A background prefetch's answer, coming after the chain closed its fork.
    cache.putStorage(address, slot, 4n)
    cache.putAccount(address, account)
    cache.putAnswer('eth_getBlockByNumber ["0x1",false]', 'null')
    await Promise.resolve()
    expect(cache.storage(address, slot)).toBeUndefined()
    expect(cache.account(address)).toBeUndefined()
    expect(cache.answer('eth_getBlockByNumber ["0x1",false]')).toBeUndefined()
    expect(committed(path)).toEqual({ accounts: 0, slots: [], answers: [] })
  })

  test('a commit that fails is said once and thrown nowhere; the cache goes on answering what it holds', async () => {
    const path = join(dir, 'failing.sqlite')
    const cache = openForkCache({ path, fork, endpoint })
    cache.putAccount(address, account)
    await Promise.resolve()
    const other = new DatabaseSync(path)
    other.exec('DROP TABLE storage')
    other.close()
    const said = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      cache.putStorage(address, slot, 1n)
      await Promise.resolve()
      cache.putStorage(address, slot, 2n)
      await Promise.resolve()
      expect(said).toHaveBeenCalledTimes(1)
      expect(String(said.mock.calls[0]?.[0])).toBe(
        `flashchain: a write to the fork cache ${path} failed (said once; a restart asks the upstream again for what it missed):`,
      )
      expect(cache.account(address)).toEqual(account)
    } finally {
      said.mockRestore()
      cache.close()
    }
  })
})
