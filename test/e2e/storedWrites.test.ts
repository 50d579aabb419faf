// What the store keeps of a block is what the block changed: a chain of empty blocks keeps no write that repeats the
// value before it (a system contract's slot rewritten as it was, the system address deleted where it never was), its
// blocks deflated, and every block and its state read the same after a restart as before it.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'

import { afterAll, describe, expect, test } from 'vitest'

import { createFlashchain } from '../../src/index.ts'

import type { Hex } from 'viem'

const HISTORY = '0x0000f90827f1c53a10cb7a02335b175320002935'
const BEACON_ROOTS = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02'
const BLOCKS = 20
const slot = (n: number) => `0x${n.toString(16).padStart(64, '0')}`
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

describe('the writes a block keeps', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'flashchain-stored-writes-'))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  test('empty blocks keep only what changed, and every block reads the same after a restart', async () => {
    const reads = async (chain: Awaited<ReturnType<typeof createFlashchain>>) => {
      const answers: unknown[] = []
      for (let number = 1; number <= BLOCKS; number++) {
        const at = `0x${number.toString(16)}`
        const block = (await chain.request({ method: 'eth_getBlockByNumber', params: [at, false] })) as { timestamp: Hex; hash: Hex }
        answers.push(
          block,
          await chain.request({ method: 'eth_getStorageAt', params: [HISTORY, slot(number - 1), at] }),
          await chain.request({ method: 'eth_getStorageAt', params: [BEACON_ROOTS, slot(Number(BigInt(block.timestamp) % 8191n)), at] }),
          await chain.request({ method: 'eth_getBalance', params: ['0xfffffffffffffffffffffffffffffffffffffffe', at] }),
        )
      }
      return answers
    }

    const first = await createFlashchain({ port: 0, dataDir, mining: 'manual', workers: 0 })
    await first.request({ method: 'anvil_mine', params: [`0x${BLOCKS.toString(16)}`] })
    const before = await reads(first)
    // Each block's parent hash went into the history contract's ring.
    const parent = (await first.request({ method: 'eth_getBlockByNumber', params: [`0x${(BLOCKS - 1).toString(16)}`, false] })) as { hash: Hex }
    expect(before[(BLOCKS - 1) * 4 + 1]).toBe(parent.hash)
    await first.close()

    const db = new DatabaseSync(join(dataDir, 'chain.sqlite'), { readOnly: true })
    try {
      const rows = db.prepare('SELECT block, address, slot, value FROM storage ORDER BY block').all() as {
        block: number
        address: Uint8Array
        slot: Uint8Array
        value: Uint8Array
      }[]
      const last = new Map<string, string>()
      const repeats: string[] = []
      for (const row of rows) {
        const key = `${hex(row.address)} ${hex(row.slot)}`
        if ((last.get(key) ?? '') === hex(row.value)) repeats.push(`block ${row.block}: ${key}`)
        last.set(key, hex(row.value))
      }
      expect(repeats).toEqual([])
      const written = db.prepare('SELECT DISTINCT address FROM accounts WHERE block > 0').all() as { address: Uint8Array }[]
      expect(written.map((row) => `0x${hex(row.address)}`).sort()).toEqual([HISTORY, BEACON_ROOTS].sort())
      expect(db.prepare('SELECT count(*) AS n FROM storage_clears WHERE block > 0').get()).toEqual({ n: 0 })
      // An empty block's own row keeps its RLP deflated (storage/blockEncoding.ts): under 300 bytes of its 616.
      const { longest } = db.prepare('SELECT max(length(rlp)) AS longest FROM blocks WHERE number > 0').get() as { longest: number }
      expect(longest).toBeLessThan(300)
    } finally {
      db.close()
    }

    const second = await createFlashchain({ port: 0, dataDir, mining: 'manual', workers: 0 })
    try {
      expect(await reads(second)).toEqual(before)
    } finally {
      await second.close()
    }
  })
})
