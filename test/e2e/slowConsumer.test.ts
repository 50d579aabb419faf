/**
 * A subscriber that stops reading: the server closes it with 1008 once it falls past its budget (8 MiB by default)
 * and logs why, and its memory stays flat while the chain goes on producing what that subscriber would have been sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { WebSocket } from 'ws'

import { startChain } from './helpers.ts'
import { connect, wsUrl } from './wsHelpers.ts'
import { heldBytes } from '../support/memory.ts'

import type { TestChain } from './helpers.ts'

let t: TestChain
const lines: string[] = []

beforeAll(async () => {
  t = await startChain({ log: (line) => lines.push(line) })
})

afterAll(async () => {
  await t?.close()
})

const MiB = 1024 * 1024

// Garbage from the flashblocks (their JSON texts) is not what is measured: collect it before each reading.

describe('a slow subscriber', () => {
  it('is closed with 1008 and a log line, and the server does not keep what it would have been sent', async () => {
    // 40 transactions with 16 KiB of calldata each: every newFlashblocks notification carries about 1.3 MB.
    const sender = t.wallet(1)
    for (let i = 0; i < 40; i++) await sender.sendTransaction({ to: t.accounts[2]!.address, data: `0x${'00'.repeat(16 * 1024)}` })
    await t.preconfirm()
    const pendingSize = JSON.stringify(await t.rpc('eth_getBlockByNumber', ['pending', true])).length
    expect(pendingSize).toBeGreaterThan(MiB)

    const slow = await connect(wsUrl(t.url))
    const subscription = await slow.subscribe(['newFlashblocks'])
    expect(subscription).toMatch(/^0x/)
    // Stop reading: what the server sends piles up in its buffers.
    slow.ws.pause()
    const watcher = await connect(wsUrl(t.url))
    await watcher.subscribe(['newHeads'])

    const disconnected = () => lines.some((line) => line.includes('fell') && line.includes('behind'))
    let flashblocks = 0
    while (!disconnected() && flashblocks < 200) {
      await t.preconfirm()
      flashblocks++
      // Let the notifications go out before the next flashblock.
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(disconnected()).toBe(true)
    // 8 MiB of backlog, plus what the sockets' kernel buffers took, is reached in a bounded number of flashblocks.
    expect(flashblocks * pendingSize).toBeGreaterThan(8 * MiB)

    // The chain goes on: as many flashblocks again as it took to fill the backlog, twice over. Were they kept for
    // the slow reader, the memory would grow by their size.
    // What the process holds after a full collection (the JS heap and the Buffers outside it), not its RSS: RSS also
    // moves with the allocator's arenas and the collector's timing, by tens of MB on a busy machine.
    const before = heldBytes()
    const more = Math.max(2 * flashblocks, Math.ceil((128 * MiB) / pendingSize))
    for (let i = 0; i < more; i++) {
      await t.preconfirm()
      await new Promise((resolve) => setImmediate(resolve))
    }
    const grown = heldBytes() - before
    expect(more * pendingSize).toBeGreaterThanOrEqual(128 * MiB)
    // Three quarters of what keeping them would take. The chain's own growth over these flashblocks (their pending
    // snapshots, kept until the seal) and the collector's timing move it: from -19 to 35 MiB alone, 48 MiB with every
    // call on the main thread, and 72 MiB once in a CI run beside two other test files (2026-11-28).
    expect(grown).toBeLessThan(96 * MiB)

    // A reader that resumes gets what was already on its way, then the close frame: 1008. One that took longer than
    // the grace to come back was cut, and the log says so.
    slow.ws.resume()
    const closed = await slow.closed
    if (lines.some((line) => line.startsWith('cut WebSocket') && line.includes('did not read its close frame'))) {
      expect(closed.code).toBe(1006)
    } else {
      expect(closed.code).toBe(1008)
      expect(closed.reason).toBe('too slow: the connection fell too far behind')
    }
    expect(slow.ws.readyState).toBe(WebSocket.CLOSED)

    // Other connections were not touched.
    expect(await watcher.rpc('eth_chainId')).toBe('0x7a69')
    await watcher.close()
    await t.mine()
  }, 120_000)
})
