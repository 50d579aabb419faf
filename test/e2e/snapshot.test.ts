/**
 * GET /snapshot, what a replica starts from: the chain's tables as stored, with nothing of the wallet's and no pooled
 * transaction left anywhere in the file (not in a free page either), the options a replica must run with, and only
 * for the node's owner: a browser's request (with an Origin, or the Sec-Fetch-Site every browser sends) is refused.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, test } from 'vitest'

import { startChain } from './helpers.ts'

import type { TestChain } from './helpers.ts'

const sqlite = process.getBuiltinModule('node:sqlite')
/** An origin the wallet trusts, whose grant is kept in the wallet's tables: it must not reach a snapshot. */
const MARKED_ORIGIN = 'https://zzqx-snapshot-marker.example'

let t: TestChain
let dir: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flashchain-snapshot-test-'))
  t = await startChain({ allowedOrigins: [MARKED_ORIGIN], revertCode: 3, dataDir: join(dir, 'node') })
})

afterAll(async () => {
  await t.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('GET /snapshot', () => {
  test('holds the chain and nothing of the wallet’s or the pool’s, anywhere in the file', async () => {
    await t.wallet(0).sendTransaction({ to: t.accounts[1]!.address, value: 1n })
    await t.mine()
    // A grant the wallet keeps, and a transaction waiting in the pool.
    const granted = await fetch(t.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: MARKED_ORIGIN },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_requestAccounts', params: [] }),
    })
    expect(((await granted.json()) as { result: string[] }).result).toHaveLength(10)
    const pooled = await t.accounts[2]!.signTransaction({
      chainId: 31337,
      to: t.accounts[3]!.address,
      value: 7n,
      nonce: 0,
      gas: 21000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    })
    await t.rpc('eth_sendRawTransaction', [pooled])

    const response = await fetch(`${t.url}/snapshot`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/vnd.sqlite3')
    const bytes = Buffer.from(await response.arrayBuffer())
    const file = join(dir, 'chain.sqlite')
    writeFileSync(file, bytes)

    const db = new sqlite.DatabaseSync(file, { readOnly: true })
    try {
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map(
        (row) => row.name,
      )
      expect(tables).toEqual([
        'accounts',
        'blocks',
        'code',
        'log_keys',
        'meta',
        'newest_accounts',
        'newest_clears',
        'newest_storage',
        'pool',
        'storage',
        'storage_clears',
        'transactions',
      ])
      // The newest tables come with the mark that says what they hold. A chain that has not kept them yet (they are
      // brought up to date at a start and every 50,000 rows) sends them empty and without one: a replica reads every row.
      expect(db.prepare("SELECT value FROM meta WHERE key = 'newest_mark'").get()).toBeUndefined()
      expect(db.prepare('SELECT COUNT(*) AS n FROM newest_accounts').get()).toEqual({ n: 0 })
      expect(db.prepare('SELECT COUNT(*) AS n FROM pool').get()).toEqual({ n: 0 })
      expect(db.prepare('SELECT MAX(number) AS head FROM blocks').get()).toEqual({ head: 1 })
      const options = db.prepare("SELECT value FROM meta WHERE key = 'sequencer_options'").get() as { value: string }
      expect(JSON.parse(options.value)).toMatchObject({ revertCode: 3 })
    } finally {
      db.close()
    }
    // Not in a free page either: the file was rewritten.
    expect(bytes.includes(Buffer.from(MARKED_ORIGIN))).toBe(false)
    expect(bytes.includes(Buffer.from(pooled.slice(2), 'hex'))).toBe(false)
    // Both are in the node's own database (its file or its write-ahead log), where they belong.
    const own = Buffer.concat([readFileSync(join(dir, 'node', 'chain.sqlite')), readFileSync(join(dir, 'node', 'chain.sqlite-wal'))])
    expect(own.includes(Buffer.from(MARKED_ORIGIN))).toBe(true)
    expect(own.includes(Buffer.from(pooled.slice(2), 'hex'))).toBe(true)
  })

  test("is the owner's alone: a browser's request is refused, with an Origin or without", async () => {
    const fromPage = await fetch(`${t.url}/snapshot`, { headers: { origin: 'https://dapp.example' } })
    expect(fromPage.status).toBe(403)
    // An <img> or a no-cors fetch sends no Origin with a GET; every browser sends Sec-Fetch-Site.
    const fromImage = await fetch(`${t.url}/snapshot`, { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' } })
    expect(fromImage.status).toBe(403)
    expect(await fromImage.text()).toMatch(/not for browsers/)
    const head = await fetch(`${t.url}/snapshot`, { method: 'HEAD' })
    expect(head.status).not.toBe(200)
  })
})
