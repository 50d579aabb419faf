// Memory held for clients, through the whole server: partial bodies across connections are capped, and a client
// that never reads its answer is disconnected.
import { connect } from 'node:net'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startChain } from './helpers.ts'

import type { Socket } from 'node:net'
import type { TestChain } from './helpers.ts'

let t: TestChain
let port: number
const sockets: Socket[] = []

beforeAll(async () => {
  t = await startChain({ maxBodyBytes: 1024 * 1024, maxBufferedBytes: 2 * 1024 * 1024, writeTimeout: 300 })
  port = Number(new URL(t.url).port)
})

afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await t?.close()
})

/** A connection that sends a head and part of its body, and keeps what it is answered. */
async function partial(bytes: number): Promise<{ socket: Socket; answer: () => string }> {
  const socket = connect(port, '127.0.0.1')
  sockets.push(socket)
  socket.on('error', () => {})
  let text = ''
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.write(`POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${1000 * 1024}\r\n\r\n`)
  socket.write(Buffer.alloc(bytes, 0x20))
  return { socket, answer: () => text }
}

describe('request bytes held across connections', () => {
  it('past the cap, the connection that goes over is answered 503 with -32005, and the node serves others', async () => {
    const held = [await partial(900 * 1024), await partial(900 * 1024)]
    const over = await partial(900 * 1024)
    // Bounded, with room for a busy machine: the answer comes once the server has read past the cap.
    for (let i = 0; i < 1000 && !over.answer().includes('\r\n\r\n'); i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(over.answer()).toMatch(/^HTTP\/1\.1 503 Service Unavailable/)
    expect(over.answer()).toMatch(/"code":-32005/)
    expect(held.every((connection) => connection.answer() === '')).toBe(true)
    expect(await t.rpc('eth_chainId')).toBe('0x7a69')
  })
})

describe('an answer nobody reads', () => {
  it('closes its connection after the write timeout, while the node serves others', async () => {
    // 24 KB of code, asked for 400 times in one batch: some 20 MB of answer, far more than the sockets buffer.
    const big = `0x${'11'.repeat(20)}`
    await t.rpc('anvil_setCode', [big, `0x${'5b'.repeat(24_000)}`])
    const batch = JSON.stringify(Array.from({ length: 400 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_getCode', params: [big, 'latest'] })))
    const socket = connect(port, '127.0.0.1')
    sockets.push(socket)
    socket.on('error', () => {})
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.pause()
    socket.write(`POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${batch.length}\r\n\r\n${batch}`)
    let received = 0
    socket.on('data', (chunk: Buffer) => (received += chunk.length))
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    expect(await t.rpc('eth_chainId')).toBe('0x7a69')
    const closed = new Promise<boolean>((resolve) => {
      socket.once('close', () => resolve(true))
      setTimeout(() => resolve(false), 5_000)
    })
    socket.resume()
    expect(await closed).toBe(true)
    expect(received).toBeLessThan(400 * 48_000)
  })
})
