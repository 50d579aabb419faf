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
import { lateAnswers, startProbe } from '../support/probe.ts'

import type { TestChain } from '../e2e/helpers.ts'

const MiB = 1024 * 1024
const PINGS = 500_000
/** Pings sent between two turns of the event loop, which the test shares with the node. */
const PER_TURN = 1000

let t: TestChain

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

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

    // Another client asks all along, each answer placed by the pings sent. All of them are sent, however long it
    // takes: 3 MB of frames, which the sockets' buffers hold should the node stop reading.
    let sent = 0
    const probe = startProbe(t, () => sent)
    while (sent < PINGS) {
      for (let i = 0; i < PER_TURN; i++) flood.ping()
      sent += PER_TURN
      await new Promise((resolve) => setImmediate(resolve))
    }
    const answers = await probe.stop()
    expect(heldBytes() - before).toBeLessThan(32 * MiB)
    // Read at last, the pongs are few: the node answered the flood, but never kept a pong per ping. A request on the
    // flood's own connection is answered after the node has read every ping, and after every pong it wrote before.
    flood.resume()
    const answered = new Promise<string>((resolve) => flood.once('message', (data: Buffer) => resolve(data.toString())))
    flood.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }))
    expect(JSON.parse(await answered)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })
    expect(pongs).toBeGreaterThan(0)
    expect(pongs).toBeLessThan(sent / 100)
    // Each probe was answered within a few turns of the event loop, counted in the pings sent meanwhile: two turns
    // (four for the first, which opens its connection), whatever the machine's speed. A node that read the flood
    // through before it turned to others would answer them hundreds of thousands of pings late.
    expect(answers.length).toBeGreaterThan(0)
    expect(lateAnswers(answers, 20 * PER_TURN)).toEqual([])
    flood.terminate()
  })
})
