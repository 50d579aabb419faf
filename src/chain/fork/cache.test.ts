import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'

import { afterAll, describe, expect, test } from 'vitest'

import { RefusedError } from '../errors.ts'
import { openForkCache } from './cache.ts'

import type { Hex } from '../../hex.ts'

const dir = mkdtempSync(join(tmpdir(), 'flashchain-fork-cache-version-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const fork = { chainId: 1n, number: 10n, hash: `0x${'ab'.repeat(32)}` as Hex }
const endpoint = 'http://127.0.0.1:1/'
const address = `0x${'11'.repeat(20)}` as Hex
const account = { balance: 5n, nonce: 2n, code: '0x60' as Hex }

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
