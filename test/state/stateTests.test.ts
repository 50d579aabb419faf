import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, test } from 'vitest'

import { FIXTURES, createStateTestRunner } from './stateTests.ts'

const runner = await createStateTestRunner()
const dir = mkdtempSync(join(tmpdir(), 'flashchain-state-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

type Case = { hash: string; logs: string; expectException?: string }

/** A copy of a fixture file with its first Cancun case changed. */
function tampered(file: string, change: (filled: Case) => void): string {
  const tests = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Record<string, { post: { Cancun: Case[] } }>
  change(Object.values(tests)[0]!.post.Cancun[0]!)
  const path = join(dir, `${Math.random().toString(36).slice(2)}.json`)
  writeFileSync(path, JSON.stringify(tests))
  return path
}

describe('the state test runner', () => {
  test('default: a filled case passes, named by its file, test, fork and indexes', async () => {
    const [result, ...rest] = await runner.runFile(join(FIXTURES, 'stExample/add11.json'), 'stExample/add11.json')
    expect(rest).toEqual([])
    expect(result).toMatchObject({ name: 'stExample/add11.json > add11 [Cancun d0 g0 v0]', pass: true, detail: undefined })
  })

  test('a transaction the fixture expects to be rejected passes, with the reason', async () => {
    const [result] = await runner.runFile(join(FIXTURES, 'stExample/invalidTr.json'), 'invalidTr')
    expect(result).toMatchObject({
      pass: true,
      detail: expect.stringMatching(/^INTRINSIC_GAS_TOO_LOW: tx gas limit 1000 is lower than the minimum gas limit of 21000/),
    })
  })

  test('error: a different state root fails', async () => {
    const path = tampered('stExample/add11.json', (filled) => (filled.hash = `0x${'11'.repeat(32)}`))
    const [result] = await runner.runFile(path, 'add11')
    expect(result).toMatchObject({
      pass: false,
      detail: `state root 0xe8010ce590f401c9d61fef8ab05bea9bcec24281b795e5868809bc4e515aa530, expected 0x${'11'.repeat(32)}`,
    })
  })

  test('error: a different logs hash fails', async () => {
    const path = tampered('stExample/add11.json', (filled) => (filled.logs = `0x${'22'.repeat(32)}`))
    const [result] = await runner.runFile(path, 'add11')
    expect(result).toMatchObject({ pass: false, detail: expect.stringMatching(/^logs hash 0x1dcc4de8\w+, expected 0x2222/) })
  })

  test('error: a transaction that runs where the fixture expects a rejection fails', async () => {
    const path = tampered('stExample/add11.json', (filled) => (filled.expectException = 'TransactionException.INTRINSIC_GAS_TOO_LOW'))
    const [result] = await runner.runFile(path, 'add11')
    expect(result).toMatchObject({ pass: false, detail: 'the transaction ran, expected TransactionException.INTRINSIC_GAS_TOO_LOW' })
  })

  test('error: a rejection the fixture does not expect fails, even with the state unchanged', async () => {
    const path = tampered('stExample/invalidTr.json', (filled) => delete filled.expectException)
    const [result] = await runner.runFile(path, 'invalidTr')
    expect(result).toMatchObject({ pass: false, detail: expect.stringMatching(/^rejected: INTRINSIC_GAS_TOO_LOW: tx gas limit 1000 is lower/) })
  })
})
