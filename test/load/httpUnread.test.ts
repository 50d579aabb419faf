/**
 * HTTP answers nobody reads: clients that ask for megabytes and read none of it are reset once the write timeout
 * passes, so they learn at once that the connection is gone, and the node answers others meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { connect, type Socket } from 'node:net'

import { startChain } from '../e2e/helpers.ts'

import type { TestChain } from '../e2e/helpers.ts'

/** Runtime code that returns 2 MiB of zeros: its eth_call answers 4 MiB of hex. */
const LARGE_RETURN = `0x${'43'.repeat(20)}`
const CLIENTS = 10
const WRITE_TIMEOUT = 1_000

let t: TestChain
const sockets: Socket[] = []

beforeAll(async () => {
  // The total output budget is set out of the way, so that only the write timeout closes these connections.
  t = await startChain({ writeTimeout: WRITE_TIMEOUT, maxTotalOutputBytes: 512 * 1024 * 1024 })
  await t.rpc('anvil_setCode', [LARGE_RETURN, '0x622000005ff3'])
})

afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await t?.close()
})

describe('answers nobody reads', () => {
  it('are reset at the write timeout, and the node answers others meanwhile', async () => {
    const call = { to: LARGE_RETURN, gas: '0xf00000' }
    expect((await t.rpc<string>('eth_call', [call, 'latest'])).length).toBe(2 + 4 * 1024 * 1024)
    // Three calls in one batch: 12 MiB, more than the sockets' buffers take, so most of it waits in the node.
    const batch = JSON.stringify([0, 1, 2].map((id) => ({ jsonrpc: '2.0', id, method: 'eth_call', params: [call, 'latest'] })))
    const port = Number(new URL(t.url).port)
    const ends: Promise<string | undefined>[] = []
    for (let i = 0; i < CLIENTS; i++) {
      const socket = connect(port, '127.0.0.1')
      sockets.push(socket)
      await new Promise((resolve) => socket.once('connect', resolve))
      // Reads nothing: a paused socket leaves what arrives in the kernel's buffers.
      socket.pause()
      let error: string | undefined
      socket.on('error', (cause: NodeJS.ErrnoException) => (error = cause.code))
      ends.push(new Promise((resolve) => socket.once('close', () => resolve(error))))
      socket.write(`POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${batch.length}\r\n\r\n${batch}`)
    }

    // Meanwhile another client is answered.
    expect(await t.rpc('eth_chainId')).toBe('0x7a69')

    // Past the write timeout (checked every half of it), each client is told with a reset; it reads again only to
    // see it.
    await new Promise((resolve) => setTimeout(resolve, 4 * WRITE_TIMEOUT))
    for (const socket of sockets) socket.resume()
    const timedOut = () => new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 10_000))
    expect(await Promise.all(ends.map((end) => Promise.race([end, timedOut()])))).toEqual(Array(CLIENTS).fill('ECONNRESET'))
    expect(await t.rpc('eth_chainId')).toBe('0x7a69')
  })
})
