// The console page's files at GET / and /assets/…, and the rule that makes the page the owner: its Origin is the
// node's own, named by a Host that is one of the node's names.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { WebSocket } from 'ws'
import { z } from 'zod'

import { createDispatcher } from '../rpc/dispatch.ts'
import { defineMethod, type MethodContext } from '../rpc/method.ts'
import { loadConsolePage } from './consolePage.ts'
import { createHttpServer, createOwnPageCheck, type HttpServer } from './http.ts'

const html = '<!doctype html><title>flashchain</title><script type="module" src="/assets/app.js"></script>'
const script = 'console.log("console")'
const providerScript = 'console.log("provider")'
let directory: string
let server: HttpServer
let wildcard: HttpServer

const dispatch = createDispatcher({
  methods: [
    defineMethod({ name: 'whoami', access: 'public', params: z.tuple([]), handler: (_, { request }) => ({ origin: request.origin ?? null }) }),
  ],
  context: (request) => ({ request }) as MethodContext,
  maxBatchLength: 10,
  revertCode: -32000,
})

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'console-page-'))
  mkdirSync(join(directory, 'assets'))
  writeFileSync(join(directory, 'index.html'), html)
  writeFileSync(join(directory, 'assets', 'app.js'), script)
  writeFileSync(join(directory, 'provider.js'), providerScript)
  writeFileSync(join(directory, 'assets', 'notes.txt'), 'not a type the page serves')
  const consolePage = loadConsolePage(directory)
  server = await createHttpServer({ host: '127.0.0.1', port: 0, dispatch, consolePage })
  wildcard = await createHttpServer({ host: '127.0.0.1', port: 0, dispatch, consolePage, allowedHosts: ['*'] })
})

afterAll(async () => {
  await server?.close()
  await wildcard?.close()
  rmSync(directory, { recursive: true, force: true })
})

/** A request with any Host and headers (fetch may not set Host). */
function send(
  to: HttpServer,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: to.port, method: options.method ?? 'GET', path: options.path ?? '/', headers: options.headers },
      (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }))
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

/** whoami's answer as the given Host and Origin: the origin the methods see, null when the caller is the owner. */
async function originSeen(to: HttpServer, host: string, origin: string): Promise<string | null> {
  const response = await send(to, {
    method: 'POST',
    headers: { Host: host, Origin: origin, 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'whoami', params: [] }),
  })
  expect(response.status).toBe(200)
  return JSON.parse(response.body).result.origin
}

describe('the page files', () => {
  test('GET / is the page, with headers that keep it from loading or being framed by anything else', async () => {
    for (const path of ['/', '/index.html', '/?view=wallet']) {
      const response = await send(server, { path })
      expect({ path, status: response.status }).toEqual({ path, status: 200 })
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(response.headers['content-security-policy']).toContain("default-src 'self'")
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'")
      expect(response.headers['x-frame-options']).toBe('DENY')
      expect(response.body).toBe(html)
    }
  })

  test('the assets, by their type; HEAD has the headers and no body', async () => {
    const asset = await send(server, { path: '/assets/app.js' })
    expect([asset.status, asset.headers['content-type'], asset.body]).toEqual([200, 'text/javascript; charset=utf-8', script])
    const head = await send(server, { method: 'HEAD', path: '/assets/app.js' })
    expect([head.status, head.headers['content-length'], head.body]).toEqual([200, String(script.length), ''])
  })

  test('/provider.js is a script any origin may load, without the page’s own policy', async () => {
    const response = await send(server, { path: '/provider.js?ethereum', headers: { Origin: 'http://localhost:3000' } })
    expect([response.status, response.headers['content-type'], response.body]).toEqual([200, 'text/javascript; charset=utf-8', providerScript])
    expect(response.headers['access-control-allow-origin']).toBe('*')
    expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin')
    expect(response.headers['x-content-type-options']).toBe('nosniff')
    expect(response.headers['content-security-policy']).toBeUndefined()
    expect(response.headers['x-frame-options']).toBeUndefined()
  })

  test('any other GET is refused as before, and nothing outside the page is reachable', async () => {
    for (const path of ['/assets/notes.txt', '/assets/../index.html', '/assets/%2e%2e/index.html', '/flashblocks', '/package.json']) {
      const response = await send(server, { path })
      expect({ path, status: response.status }).toEqual({ path, status: 405 })
      expect(JSON.parse(response.body).error.code).toBe(-32600)
    }
  })

  test('JSON-RPC stays on POST at /', async () => {
    const response = await send(server, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'whoami', params: [] }),
    })
    expect(JSON.parse(response.body)).toEqual({ jsonrpc: '2.0', id: 7, result: { origin: null } })
  })

  test('a page that was never built answers 503 with what to run', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'console-page-empty-'))
    try {
      const response = loadConsolePage(empty).serve('/')
      expect(response?.status).toBe(503)
      expect(String(response?.body)).toContain('npm run build:console')
      expect(loadConsolePage(empty).serve('/assets/app.js')).toBeUndefined()
      expect(loadConsolePage(empty).serve('/provider.js')).toBeUndefined()
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })
})

test('a file the build did not write leaves the others served', () => {
  const partial = mkdtempSync(join(tmpdir(), 'console-page-partial-'))
  try {
    mkdirSync(join(partial, 'assets'))
    writeFileSync(join(partial, 'index.html'), html)
    writeFileSync(join(partial, 'assets', 'app.js'), script)
    const page = loadConsolePage(partial)
    expect(page.serve('/provider.js')).toBeUndefined()
    expect(String(page.serve('/assets/app.js')?.body)).toBe(script)
    expect(String(page.serve('/')?.body)).toBe(html)
  } finally {
    rmSync(partial, { recursive: true, force: true })
  }
})

describe('the page is the owner', () => {
  test('its own origin acts as the owner, under each of the node’s names', async () => {
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `[::1]:${server.port}`, `app.localhost:${server.port}`]) {
      expect({ host, origin: await originSeen(server, host, `http://${host}`) }).toEqual({ host, origin: null })
    }
  })

  test('any other origin is itself: another port, another scheme, or another of the node’s names', async () => {
    const host = `127.0.0.1:${server.port}`
    for (const origin of [
      'http://localhost:3000',
      `https://${host}`,
      `http://localhost:${server.port}`,
      'https://dapp.example',
      'null',
      `http://${host}.evil.example`,
    ]) {
      expect(await originSeen(server, host, origin)).toBe(origin)
    }
  })

  test('with every Host allowed, a rebound name is still not the node’s own page', async () => {
    const host = `evil.example:${wildcard.port}`
    expect(await originSeen(wildcard, host, `http://${host}`)).toBe(`http://${host}`)
    expect(await originSeen(wildcard, `127.0.0.1:${wildcard.port}`, `http://127.0.0.1:${wildcard.port}`)).toBeNull()
  })

  test('the rule itself, for names given with --allowed-hosts and for requests without a Host', () => {
    const ownPage = createOwnPageCheck('0.0.0.0', ['devbox.lan', '*'])
    expect(ownPage('http://devbox.lan:8545', 'devbox.lan:8545')).toBe(true)
    expect(ownPage('http://0.0.0.0:8545', '0.0.0.0:8545')).toBe(true)
    expect(ownPage('http://other.lan:8545', 'other.lan:8545')).toBe(false)
    expect(ownPage('http://localhost:8545', undefined)).toBe(false)
    expect(ownPage(undefined, 'localhost:8545')).toBe(false)
  })

  test('over WebSocket too: the upgrade’s Origin decides', async () => {
    const ask = async (origin: string) => {
      const ws = new WebSocket(`ws://127.0.0.1:${server.port}/`, { origin })
      try {
        await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
        const answer = new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))))
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'whoami', params: [] }))
        return JSON.parse(await answer).result.origin
      } finally {
        ws.close()
      }
    }
    expect(await ask(`http://127.0.0.1:${server.port}`)).toBeNull()
    expect(await ask('https://dapp.example')).toBe('https://dapp.example')
  })
})
