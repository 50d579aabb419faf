import { describe, expect, test } from 'vitest'

import { createSealLog } from './sealLog.ts'

import type { Hex } from '../../hex.ts'

const hash = `0x${'ab'.repeat(32)}` as Hex

describe('the seal lines', () => {
  test('a block with transactions has its line; a run of empty blocks one line, when it ends', () => {
    const lines: string[] = []
    const seals = createSealLog(
      (line) => lines.push(line),
      () => 0,
    )
    seals.sealed(1n, 1, hash, 3.4)
    for (const number of [2n, 3n, 4n]) seals.sealed(number, 0, hash)
    expect(lines).toEqual([`sealed block 1 (1 transaction) ${hash} in 3 ms`])
    seals.sealed(5n, 2, hash, 12)
    seals.sealed(6n, 0, hash)
    seals.sealed(7n, 3, hash)
    expect(lines).toEqual([
      `sealed block 1 (1 transaction) ${hash} in 3 ms`,
      'sealed blocks 2–4 (empty)',
      `sealed block 5 (2 transactions) ${hash} in 12 ms`,
      'sealed block 6 (empty)',
      `sealed block 7 (3 transactions) ${hash}`,
    ])
  })

  test('a long run of empty blocks is printed once a minute while it lasts, and the rest at shutdown', () => {
    const lines: string[] = []
    let now = 0
    const seals = createSealLog(
      (line) => lines.push(line),
      () => now,
    )
    for (let number = 1n; number <= 45n; number++, now += 2_000) seals.sealed(number, 0, hash)
    expect(lines).toEqual(['sealed blocks 1–31 (empty)'])
    seals.flush()
    expect(lines).toEqual(['sealed blocks 1–31 (empty)', 'sealed blocks 32–45 (empty)'])
    seals.flush()
    expect(lines.length).toBe(2)
  })
})
