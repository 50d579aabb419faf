import { afterEach, describe, expect, test } from 'vitest'

import { createConnection } from 'node:net'

import { WebSocket } from 'ws'
import { z } from 'zod'

import { createDispatcher } from '../rpc/dispatch.ts'
import { defineMethod } from '../rpc/method.ts'
import { createHttpServer, type HttpServer } from './http.ts'
import { parseHead } from './http1Messages.ts'

import type { MethodContext } from '../rpc/method.ts'

/** Answers what the transport said about the caller, so a test sees the headers each message is judged by. */
const whoami = defineMethod({
  name: 'test_whoami',
  access: 'public',
  params: z.tuple([]),
  handler: (_params, { request }) => ({
    origin: request.origin ?? null,
    authorization: request.authorization ?? null,
    session: request.session !== undefined,
  }),
})

let server: HttpServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function start(websocket: { pingInterval?: number } = {}): Promise<HttpServer> {
  const dispatch = createDispatcher({
    methods: [whoami],
    context: (request) => ({ request }) as MethodContext,
    maxBatchLength: 10,
    revertCode: -32000,
  })
  server = await createHttpServer({ host: '127.0.0.1', port: 0, dispatch, websocket })
  return server
}

function open(url: string, options: ConstructorParameters<typeof WebSocket>[2] = {}): Promise<WebSocket> {
  const ws = new WebSocket(url.replace('http', 'ws'), options)
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })
}

function ask(ws: WebSocket, body: unknown): Promise<unknown> {
  return new Promise((resolve) => {
    ws.once('message', (data: Buffer) => resolve(JSON.parse(data.toString())))
    ws.send(JSON.stringify(body))
  })
}

describe('WebSocket transport', () => {
  test('judges every message by the upgrade request’s Origin and Authorization, and gives it a session', async () => {
    const { url } = await start()
    const ws = await open(url, { headers: { Origin: 'https://dapp.example', Authorization: 'Bearer t0ken' } })
    expect(await ask(ws, { jsonrpc: '2.0', id: 1, method: 'test_whoami' })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { origin: 'https://dapp.example', authorization: 'Bearer t0ken', session: true },
    })
    ws.close()
    const plain = await open(url)
    expect(await ask(plain, { jsonrpc: '2.0', id: 2, method: 'test_whoami' })).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { origin: null, authorization: null, session: true },
    })
    plain.close()
  })

  test('over HTTP there is no session', async () => {
    const { url } = await start()
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"test_whoami"}',
    })
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: { origin: null, authorization: null, session: false } })
  })

  test('pings idle connections: a peer that answers stays, one that does not is dropped', async () => {
    // An answer has one interval to arrive, and on a loaded machine a turn of the event loop can take tens of ms: the
    // interval leaves the answering peer many times that.
    const { url } = await start({ pingInterval: 400 })
    const answering = await open(url)
    const silent = await open(url, { autoPong: false })
    let pings = 0
    const thirdPing = new Promise<void>((resolve) =>
      answering.on('ping', () => {
        if (++pings === 3) resolve()
      }),
    )
    const dropped = new Promise<number>((resolve) => silent.once('close', (code) => resolve(code)))
    // Terminated without a close frame: the peer sees 1006.
    expect(await dropped).toBe(1006)
    expect(answering.readyState).toBe(WebSocket.OPEN)
    await thirdPing
    expect(answering.readyState).toBe(WebSocket.OPEN)
    answering.close()
  })

  test('an upgrade without a valid Sec-WebSocket-Key is refused with 400', async () => {
    const { port } = await start()
    const answer = await new Promise<string>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () =>
        socket.write('GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n'),
      )
      let text = ''
      socket.on('data', (chunk) => (text += chunk.toString()))
      socket.on('close', () => resolve(text))
    })
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
  })
})

describe('parseHead: upgrade requests', () => {
  const head = (...lines: string[]) => parseHead(['GET /flashblocks?encoding=json HTTP/1.1', 'Host: a', ...lines].join('\r\n'))

  test('a GET with Upgrade: websocket and Connection: upgrade carries its target and WebSocket headers', () => {
    expect(
      head('Upgrade: WebSocket', 'Connection: keep-alive, Upgrade', 'Sec-WebSocket-Key: k', 'Sec-WebSocket-Version: 13', 'Origin: o'),
    ).toMatchObject({
      upgrade: {
        method: 'GET',
        origin: 'o',
        target: '/flashblocks?encoding=json',
        headers: { upgrade: 'websocket', connection: 'upgrade', 'sec-websocket-key': 'k', 'sec-websocket-version': '13' },
      },
    })
  })

  test('is plain HTTP without Connection: upgrade, with another protocol, with a body, or for another method', () => {
    expect(head('Upgrade: websocket')).not.toHaveProperty('upgrade')
    expect(head('Upgrade: h2c', 'Connection: upgrade')).not.toHaveProperty('upgrade')
    expect(head('Upgrade: websocket', 'Connection: upgrade', 'Content-Length: 2')).not.toHaveProperty('upgrade')
    expect(parseHead('POST / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: upgrade')).not.toHaveProperty('upgrade')
    expect(parseHead('GET / HTTP/1.0\r\nUpgrade: websocket\r\nConnection: upgrade')).not.toHaveProperty('upgrade')
  })
})
