import { Agent, request as httpRequest } from 'node:http'

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { z } from 'zod'

import { createDispatcher } from '../rpc/dispatch.ts'
import { defineMethod, type MethodContext } from '../rpc/method.ts'
import { createHttpServer, type HttpServer } from './http.ts'

const maxBodyBytes = 1024

let server: HttpServer

beforeAll(async () => {
  const dispatch = createDispatcher({
    methods: [
      defineMethod({ name: 'echo', access: 'public', params: z.tuple([z.string()]), handler: ([text]) => text }),
      defineMethod({ name: 'whoami', access: 'public', params: z.tuple([]), handler: (_, { request }) => request }),
    ],
    context: (request) => ({ request }) as MethodContext,
    maxBatchLength: 10,
    revertCode: -32000,
  })
  server = await createHttpServer({ host: '127.0.0.1', port: 0, dispatch, maxBodyBytes })
})

afterAll(() => server.close())

function post(body: string, headers: Record<string, string> = {}) {
  return fetch(server.url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body })
}

const echo = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: ['hi'] })

test('listens on the requested host with the real port', () => {
  expect(server.port).toBeGreaterThan(0)
  expect(server.url).toBe(`http://127.0.0.1:${server.port}`)
})

describe('POST', () => {
  test('answers a request with 200 JSON', async () => {
    const response = await post(echo)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: 'hi' })
  })

  test('answers a batch with an array', async () => {
    const response = await post(`[${echo},${echo}]`)
    expect(await response.json()).toEqual([
      { jsonrpc: '2.0', id: 1, result: 'hi' },
      { jsonrpc: '2.0', id: 1, result: 'hi' },
    ])
  })

  test('answers a notification with 204 and no body', async () => {
    const response = await post(JSON.stringify({ jsonrpc: '2.0', method: 'echo', params: ['hi'] }))
    expect(response.status).toBe(204)
    expect(await response.text()).toBe('')
  })

  test('passes Origin and Authorization to the methods', async () => {
    const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'whoami' }), {
      Origin: 'http://localhost:5173',
      Authorization: 'Bearer token',
    })
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { origin: 'http://localhost:5173', authorization: 'Bearer token' },
    })
  })

  test('accepts a Content-Type with parameters in any case', async () => {
    const response = await post(echo, { 'Content-Type': 'Application/JSON; charset=UTF-8' })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: 'hi' })
  })

  test('answers invalid JSON with -32700 and id null', async () => {
    const response = await post('{"jsonrpc":"2.0",')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
  })

  test('answers an empty body with -32700', async () => {
    const response = await post('')
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
  })
})

describe('rejected requests', () => {
  test('answers a wrong Content-Type with 415', async () => {
    const response = await post(echo, { 'Content-Type': 'text/plain' })
    expect(response.status).toBe(415)
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid request: Content-Type must be application/json' },
    })
  })

  test('answers a missing Content-Type with 415', async () => {
    const response = await fetch(server.url, { method: 'POST', body: new Uint8Array(Buffer.from(echo)) })
    expect(response.status).toBe(415)
  })

  test('answers GET with 405', async () => {
    const response = await fetch(server.url)
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST, OPTIONS')
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid request: only POST is supported' },
    })
  })

  test('answers an announced oversized body with 413 and closes the connection', async () => {
    const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: ['x'.repeat(2000)] }))
    expect(response.status).toBe(413)
    expect(response.headers.get('connection')).toBe('close')
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32005, message: `request body exceeds the limit of ${maxBodyBytes} bytes` },
    })
  })

  test('answers a chunked body that grows past the limit with 413 and closes the connection', async () => {
    // No Content-Length: the limit can only be enforced while streaming. The body is never finished, so a server
    // that waited for its end would hang here.
    const { status, body, closed } = await new Promise<{ status: number; body: string; closed: Promise<void> }>((resolve, reject) => {
      const req = httpRequest(server.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      })
      req.on('error', reject)
      req.on('response', (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
        const closed = new Promise<void>((done) => res.socket.once('close', () => done()))
        res.on('end', () => resolve({ status: res.statusCode!, body, closed }))
      })
      req.write('x'.repeat(maxBodyBytes + 1))
    })
    expect(status).toBe(413)
    expect(JSON.parse(body)).toMatchObject({ id: null, error: { code: -32005 } })
    await closed
  })
})

describe('keep-alive', () => {
  test('reuses one connection for consecutive requests', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const send = () =>
      new Promise<{ reused: boolean; status: number }>((resolve, reject) => {
        const req = httpRequest(server.url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json' } })
        req.on('error', reject)
        req.on('response', (res) => {
          res.resume().on('end', () => resolve({ reused: req.reusedSocket, status: res.statusCode! }))
        })
        req.end(echo)
      })
    try {
      expect(await send()).toEqual({ reused: false, status: 200 })
      expect(await send()).toEqual({ reused: true, status: 200 })
    } finally {
      agent.destroy()
    }
  })
})

describe('CORS', () => {
  test('answers a preflight with 204 and the allowed methods and headers', async () => {
    const response = await fetch(server.url, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:3000',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:3000')
    expect(response.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS')
    expect(response.headers.get('access-control-allow-headers')).toBe('Content-Type, Authorization')
    expect(response.headers.get('access-control-max-age')).toBe('86400')
  })

  test('echoes the Origin on POST responses', async () => {
    const response = await post(echo, { Origin: 'http://localhost:3000' })
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:3000')
    expect(response.headers.get('vary')).toBe('Origin')
  })

  test('allows any origin when the request has none', async () => {
    const response = await post(echo)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
  })

  test("sends the caller's CORS header on a transport refusal too", async () => {
    const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: ['x'.repeat(2000)] }), {
      Origin: 'http://localhost:3000',
    })
    expect(response.status).toBe(413)
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:3000')
    expect(response.headers.get('vary')).toBe('Origin')
  })

  test('sends the CORS header on error responses too', async () => {
    const response = await post(echo, { 'Content-Type': 'text/plain', Origin: 'http://localhost:3000' })
    expect(response.status).toBe(415)
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:3000')
  })
})

test('answers a dispatcher that throws with 500 and -32603, without its message', async () => {
  const failing = await createHttpServer({
    host: '127.0.0.1',
    port: 0,
    dispatch: async () => {
      throw new Error('secret detail')
    },
  })
  const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
  try {
    const response = await fetch(failing.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    })
    expect(response.status).toBe(500)
    const internalError = { code: -32603, message: 'Internal error' }
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: null, error: internalError })
    expect(logged).toHaveBeenCalledOnce()
  } finally {
    logged.mockRestore()
    await failing.close()
  }
})

test('close() stops the server and frees the port', async () => {
  const other = await createHttpServer({
    host: '127.0.0.1',
    port: 0,
    dispatch: async () => undefined,
  })
  // An open keep-alive connection must not keep close() from resolving.
  await fetch(other.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })
  await other.close()
  await expect(fetch(other.url, { method: 'POST' })).rejects.toThrow()
})
