// DNS rebinding: a web page whose name now resolves to 127.0.0.1 sends requests with its own Host and no Origin
// (same-origin to the browser). Only the node's own names are answered, as geth's --http.vhosts does.
import { request } from 'node:http'
import { connect } from 'node:net'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createHostCheck } from '../../src/server/http.ts'
import { startChain } from './helpers.ts'

import type { TestChain } from './helpers.ts'

let t: TestChain
let port: number

beforeAll(async () => {
  t = await startChain()
  port = Number(new URL(t.url).port)
})

afterAll(async () => {
  await t?.close()
})

/** A JSON-RPC POST with the Host header given (fetch may not set Host). */
function post(host: string, method: string, params: unknown[] = [], to = port): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })
    const req = request(
      { host: '127.0.0.1', port: to, method: 'POST', path: '/', headers: { Host: host, 'Content-Type': 'application/json' } },
      (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, body: text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

describe('the Host header', () => {
  it("a foreign name gets HTTP 403 and changes nothing, even an owner's method", async () => {
    const before = await t.blockNumber()
    for (const method of ['evm_mine', 'flashchain_setApprovalPolicy', 'eth_sendTransaction', 'eth_chainId']) {
      const params = method === 'flashchain_setApprovalPolicy' ? [{ default: 'reject' }] : []
      const { status, body } = await post('evil.example', method, params)
      expect(status).toBe(403)
      expect(JSON.parse(body).error).toMatchObject({ code: -32600, message: expect.stringMatching(/invalid host specified/) })
    }
    expect(await t.blockNumber()).toBe(before)
    // The policy is still approve: a dev account's send is answered.
    await t.wallet(0).sendTransaction({ to: t.accounts[1]!.address, value: 1n })
  })

  it('the node’s own names are answered, with or without a port', async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'localhost', `app.localhost:${port}`, `LOCALHOST:${port}`]) {
      const { status, body } = await post(host, 'eth_chainId')
      expect({ host, status }).toEqual({ host, status: 200 })
      expect(JSON.parse(body).result).toBe('0x7a69')
    }
  })

  it('--allowed-hosts adds names, and * allows any', async () => {
    const chain = await startChain({ allowedHosts: ['dev.example'] })
    try {
      const other = Number(new URL(chain.url).port)
      expect((await post(`dev.example:${other}`, 'eth_chainId', [], other)).status).toBe(200)
      expect((await post('evil.example', 'eth_chainId', [], other)).status).toBe(403)
    } finally {
      await chain.close()
    }
    const open = await startChain({ allowedHosts: ['*'] })
    try {
      const other = Number(new URL(open.url).port)
      expect((await post('anything.example', 'eth_chainId', [], other)).status).toBe(200)
    } finally {
      await open.close()
    }
  })

  it('a WebSocket upgrade with a foreign Host gets 403 and no socket', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          'GET / HTTP/1.1\r\nHost: evil.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
            'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
        )
      })
      let text = ''
      socket.on('data', (chunk) => (text += chunk))
      socket.on('close', () => resolve(text))
      socket.on('error', reject)
      // Ends a socket the server left open, long after any answer, slow machine or not.
      setTimeout(() => socket.destroy(), 20_000)
    })
    expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden/)
    expect(answer).not.toMatch(/101 Switching Protocols/)
  })
})

describe('createHostCheck', () => {
  it('takes the bind address and the names given, in any case, and no Host at all (HTTP/1.0)', () => {
    const check = createHostCheck('192.168.1.5', ['Node.Example'])
    expect(check('192.168.1.5:8545')).toBe(true)
    expect(check('node.example')).toBe(true)
    expect(check(undefined)).toBe(true)
    expect(check('192.168.1.6:8545')).toBe(false)
    expect(check('localhost.evil.example')).toBe(false)
    expect(createHostCheck('::1', [])('[::1]:1')).toBe(true)
  })
})
