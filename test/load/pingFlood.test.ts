/**
 * A ping flood whose pongs are not read: the node has one pong at a time on its way, answering only the latest ping
 * of those that came meanwhile (RFC 6455 §5.5.3), and does not read the socket while that pong waits; so the flood
 * piles up nothing in the node, and other clients are answered meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { WebSocket } from 'ws'

import { startChain } from '../e2e/helpers.ts'
import { wsUrl } from '../e2e/wsHelpers.ts'
import { heldBytes } from '../support/memory.ts'

import type { TestChain } from '../e2e/helpers.ts'

const MiB = 1024 * 1024
const PINGS = 500_000

let t: TestChain

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('a ping flood with unread pongs', () => {
  it('gets few pongs, piles up nothing in the node, and others are answered', async () => {
    const flood = new WebSocket(wsUrl(t.url))
    flood.on('error', () => {})
    await new Promise((resolve) => flood.once('open', resolve))
    // Reads nothing: the pongs stay in the kernel's buffers, then in the node, were it to keep answering.
    flood.pause()
    let pongs = 0
    flood.on('pong', () => pongs++)
    const before = heldBytes()

    let sent = 0
    const waits: number[] = []
    const started = Date.now()
    while (sent < PINGS && Date.now() - started < 15_000) {
      for (let i = 0; i < 1000; i++) flood.ping()
      sent += 1000
      // The flood's own socket fills once the node stops reading it: then only wait for it.
      if (flood.bufferedAmount > 4 * MiB) await sleep(10)
      else await new Promise((resolve) => setImmediate(resolve))
      if (sent % 50_000 === 0) {
        const asked = performance.now()
        expect(await t.rpc('eth_chainId')).toBe('0x7a69')
        waits.push(performance.now() - asked)
      }
    }
    expect(heldBytes() - before).toBeLessThan(32 * MiB)
    // Read at last, the pongs are few: the node answered the flood, but never kept a pong per ping.
    flood.resume()
    await sleep(1_000)
    expect(pongs).toBeGreaterThan(0)
    expect(pongs).toBeLessThan(sent / 100)
    expect(waits.length).toBeGreaterThan(0)
    // A margin for a busy machine's pauses, far from the seconds a client waited before.
    expect(Math.max(...waits)).toBeLessThan(2_000)
    flood.terminate()
  })
})
