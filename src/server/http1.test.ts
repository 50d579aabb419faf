import { connect, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

import { afterEach, describe, expect, test, vi } from 'vitest'

import { createHttp1Server, type Http1Head, type Http1Limits, type Http1Request, type Http1Response, type Http1Server } from './http1.ts'
import { formatHead, parseChunkSize, parseHead } from './http1Messages.ts'

// ---------------------------------------------------------------------------------------------------------------
// Helpers

const limits: Http1Limits = {
  maxHeaderBytes: 1024,
  maxBodyBytes: 1024,
  keepAliveTimeout: 60_000,
  headersTimeout: 60_000,
  requestTimeout: 60_000,
  maxBufferedBytes: 64 * 1024 * 1024,
  writeTimeout: 30_000,
}

type Harness = {
  server: Http1Server
  port: number
  /** The body text of every request handed to the handler, in order. */
  calls: string[]
  refusals: { status: number; head: Http1Head | undefined }[]
  /** Lets the pending `slow` requests finish. */
  release(): void
}

const servers: Http1Server[] = []
const clients: RawClient[] = []

afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.destroy()
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>((done) => (resolve = done))
  return { promise, resolve }
}

function echo(request: Http1Request): Http1Response {
  const { method, origin, authorization, contentType } = request
  return {
    status: 200,
    headers: origin === undefined ? undefined : `X-Origin: ${origin}\r\n`,
    body: JSON.stringify({ method, origin, authorization, contentType, body: request.body.toString('utf8') }),
  }
}

// 100 answers of this size (25 MiB) are more than the kernel's socket buffers on both ends can hold.
const bigPadding = 'x'.repeat(256 * 1024)
// More than the kernel's socket buffers hold, so most of it waits in the server while the client does not read.
const hugePadding = 'h'.repeat(32 * 1024 * 1024)

/**
 * Echoes the request as JSON, except for a few body texts: `slow` waits for release(), `big:N` answers 256 KiB,
 * `huge` answers 32 MiB, `close` asks to close the connection, `no-content` answers 204 with a body, `reject` rejects.
 */
async function start(overrides: Partial<Http1Limits> = {}): Promise<Harness> {
  const calls: string[] = []
  const refusals: Harness['refusals'] = []
  const slow = deferred()
  const server = await createHttp1Server({
    host: '127.0.0.1',
    port: 0,
    limits: { ...limits, ...overrides },
    handle: async (request) => {
      const text = request.body.toString('utf8')
      calls.push(text)
      if (text === 'slow') await slow.promise
      if (text.startsWith('big:')) {
        return { status: 200, body: JSON.stringify({ n: Number(text.slice(4)), bigPadding }) }
      }
      if (text === 'close') return { ...echo(request), close: true }
      if (text === 'no-content') return { status: 204, body: '"dropped"' }
      if (text === 'huge') return { status: 200, body: JSON.stringify({ hugePadding }) }
      if (text === 'reject') throw new Error('handler failed')
      return echo(request)
    },
    refuse: (status, error, head) => {
      refusals.push({ status, head })
      return { status, body: JSON.stringify({ status, message: error.message }) }
    },
  })
  servers.push(server)
  return { server, port: server.port, calls, refusals, release: slow.resolve }
}

type RawResponse = {
  status: number
  /** The status line and header lines, decoded as latin1. */
  head: string
  /** Lower-case names. */
  headers: Record<string, string>
  body: Buffer
  text: string
  /** The response's bytes as received. */
  raw: Buffer
}

/** A client over a raw socket: collects every byte and parses responses out of them by Content-Length. */
class RawClient {
  readonly socket: Socket
  /** Bytes received from #offset on are not yet parsed; #pending arrived since the last look. */
  #received = Buffer.alloc(0)
  #offset = 0
  #pending: Buffer[] = []
  #pendingLength = 0
  /** How many unparsed bytes the response being read needs; no use looking before they are there. */
  #needed = 0
  #connected = false
  #closed = false
  #error: Error | undefined
  #wake = new Set<() => void>()

  constructor(socket: Socket) {
    this.socket = socket
    const wake = () => {
      for (const check of [...this.#wake]) check()
    }
    socket.on('connect', () => {
      this.#connected = true
      wake()
    })
    socket.on('data', (chunk: Buffer) => {
      this.#pending.push(chunk)
      this.#pendingLength += chunk.length
      if (this.#received.length - this.#offset + this.#pendingLength >= this.#needed) wake()
    })
    socket.on('error', (error) => {
      this.#error = error
      wake()
    })
    socket.on('close', () => {
      this.#closed = true
      wake()
    })
  }

  get isClosed(): boolean {
    return this.#closed
  }

  write(data: string | Buffer): void {
    this.socket.write(data)
  }

  /** Bytes received and not yet parsed as a response, as latin1. */
  unread(): string {
    return this.#bytes().toString('latin1', this.#offset)
  }

  async connected(ms = 2000): Promise<void> {
    await this.#until('the connection', ms, () => {
      if (this.#error !== undefined) throw this.#error
      return this.#connected || undefined
    })
  }

  /** The next response; `head: true` for the answer to a HEAD request (no body whatever Content-Length says). */
  response(options: { head?: boolean; ms?: number } = {}): Promise<RawResponse> {
    return this.#until('a response', options.ms ?? 2000, () => {
      const response = this.#parse(options.head === true)
      if (response === undefined && this.#closed) throw new Error(`closed before a full response: ${this.unread()}`)
      return response
    })
  }

  async responses(count: number, ms = 2000): Promise<RawResponse[]> {
    const responses: RawResponse[] = []
    for (let i = 0; i < count; i++) responses.push(await this.response({ ms }))
    return responses
  }

  closed(ms = 2000): Promise<true> {
    return this.#until('the connection to close', ms, () => this.#closed || undefined)
  }

  #until<T>(what: string, ms: number, check: () => T | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#wake.delete(attempt)
        reject(new Error(`timed out after ${ms} ms waiting for ${what}; unread: ${JSON.stringify(this.unread())}`))
      }, ms)
      const attempt = () => {
        let result: T | undefined
        try {
          result = check()
        } catch (error) {
          clearTimeout(timer)
          this.#wake.delete(attempt)
          reject(error)
          return
        }
        if (result === undefined) return
        clearTimeout(timer)
        this.#wake.delete(attempt)
        resolve(result)
      }
      this.#wake.add(attempt)
      attempt()
    })
  }

  /** The unparsed bytes from #offset on, with what arrived since; parsed responses are dropped. */
  #bytes(): Buffer {
    if (this.#pending.length > 0) {
      this.#received = Buffer.concat([this.#received.subarray(this.#offset), ...this.#pending.splice(0)])
      this.#offset = 0
      this.#pendingLength = 0
    }
    return this.#received
  }

  #parse(noBody: boolean): RawResponse | undefined {
    const data = this.#bytes()
    const start = this.#offset
    const end = data.indexOf('\r\n\r\n', start)
    if (end === -1) return undefined
    const head = data.toString('latin1', start, end)
    const [statusLine, ...lines] = head.split('\r\n')
    const match = /^HTTP\/1\.1 (\d{3}) [^\r\n]+$/.exec(statusLine!)
    if (match === null) throw new Error(`not a status line: ${JSON.stringify(statusLine)}`)
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      const name = line.slice(0, colon).toLowerCase()
      if (colon <= 0 || Object.hasOwn(headers, name)) throw new Error(`bad or repeated header line: ${line}`)
      headers[name] = line.slice(colon + 1).trim()
    }
    const status = Number(match[1])
    const length = noBody || status < 200 || status === 204 ? 0 : Number(headers['content-length'])
    if (!Number.isSafeInteger(length)) throw new Error(`no Content-Length in ${JSON.stringify(head)}`)
    if (data.length < end + 4 + length) {
      this.#needed = end + 4 + length - start
      return undefined
    }
    this.#needed = 0
    this.#offset = end + 4 + length
    const body = data.subarray(end + 4, end + 4 + length)
    return { status, head, headers, body, text: body.toString('utf8'), raw: data.subarray(start, end + 4 + length) }
  }
}

async function open(port: number): Promise<RawClient> {
  const client = new RawClient(connect({ host: '127.0.0.1', port, noDelay: true }))
  clients.push(client)
  await client.connected()
  return client
}

function post(body: string, ...headers: string[]): string {
  const fields = headers.map((header) => `${header}\r\n`).join('')
  return `POST / HTTP/1.1\r\nHost: test\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${fields}\r\n${body}`
}

const chunkedHead = 'POST / HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n'

function bodyOf(response: RawResponse): unknown {
  return JSON.parse(response.text)
}

function echoed(response: RawResponse): string {
  return (bodyOf(response) as { body: string }).body
}

/** Asserts the connection is still open and answers another request. */
async function expectUsable(client: RawClient): Promise<void> {
  client.write(post('again'))
  const response = await client.response()
  expect(response.status).toBe(200)
  expect(echoed(response)).toBe('again')
  expect(client.isClosed).toBe(false)
}

async function expectClosedAfter(client: RawClient, response: RawResponse): Promise<void> {
  expect(response.headers.connection).toBe('close')
  await client.closed()
  expect(client.unread()).toBe('')
}

/**
 * Waits until `check` holds, looking every 10 ms: for what the server does on its own turns, which a loaded machine
 * delays. The bound only turns a wait that never ends into a failure that says what it waited for.
 */
async function until(what: string, check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 20_000) throw new Error(`still waiting for ${what} after 20 s`)
    await sleep(10)
  }
}

/**
 * Waits until the number of requests handed to the handler stops growing for 200 ms (bounded), and returns it: the
 * server has stopped reading.
 */
async function untilSteady(calls: string[]): Promise<number> {
  await until('a first request to be handled', () => calls.length > 0)
  let handled = -1
  for (let round = 0; round < 100 && calls.length !== handled; round++) {
    handled = calls.length
    await sleep(200)
  }
  return handled
}

function refusal(status: number, message: string): { status: number; message: string } {
  return { status, message }
}

function parse(...lines: string[]) {
  return parseHead(lines.join('\r\n'))
}

/**
 * Asserts that the head of `lines` is refused with `status` and `reason`; a 400's reason is given without its
 * "malformed HTTP request: " prefix.
 */
function expectRefused(lines: string[], status: number, reason?: string): void {
  const expected =
    reason === undefined ? { refusal: status } : { refusal: status, reason: status === 400 ? `malformed HTTP request: ${reason}` : reason }
  expect(parse(...lines), JSON.stringify(lines)).toMatchObject(expected)
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing

describe('parseHead', () => {
  test('parses a valid request', () => {
    expect(
      parse(
        'POST /rpc?x=1 HTTP/1.1',
        'Host: localhost:8545',
        'Content-Type: application/json',
        'Content-Length: 12',
        'Origin: http://localhost:3000',
        'Authorization: Bearer token',
        'Sec-Fetch-Site: cross-site',
        'X-Other: ignored',
      ),
    ).toStrictEqual({
      fields: {
        method: 'POST',
        target: '/rpc?x=1',
        host: 'localhost:8545',
        contentType: 'application/json',
        origin: 'http://localhost:3000',
        authorization: 'Bearer token',
        fetchSite: 'cross-site',
      },
      keepAlive: true,
      contentLength: 12,
      chunked: false,
      expectContinue: false,
    })
  })

  test('leaves absent fields undefined and the method as sent', () => {
    expect(parse('get / HTTP/1.1', 'Host: a')).toStrictEqual({
      fields: { method: 'get', target: '/', host: 'a', contentType: undefined, origin: undefined, authorization: undefined, fetchSite: undefined },
      keepAlive: true,
      contentLength: undefined,
      chunked: false,
      expectContinue: false,
    })
  })

  test('matches header names in any case', () => {
    expect(
      parse(
        'POST / HTTP/1.1',
        'HOST: a',
        'cOnTeNt-TyPe: text/plain',
        'content-LENGTH: 3',
        'ORIGIN: o',
        'authorization: t',
        'SEC-FETCH-SITE: same-origin',
        'CONNECTION: CLOSE',
        'EXPECT: 100-Continue',
      ),
    ).toStrictEqual({
      fields: { method: 'POST', target: '/', host: 'a', contentType: 'text/plain', origin: 'o', authorization: 't', fetchSite: 'same-origin' },
      keepAlive: false,
      contentLength: 3,
      chunked: false,
      expectContinue: true,
    })
    expect(parse('POST / HTTP/1.1', 'host: a', 'TRANSFER-ENCODING: CHUNKED')).toMatchObject({ chunked: true })
  })

  test('trims spaces and tabs off values, and nothing else', () => {
    const head = parse(
      'POST / HTTP/1.1',
      'Host: a',
      'Origin:http://a',
      'Content-Type: \t application/json \t ',
      'Content-Length:\t7\t',
      'Authorization: \xa0token\xa0',
    )
    expect(head).toMatchObject({
      fields: { origin: 'http://a', contentType: 'application/json', authorization: '\xa0token\xa0' },
      contentLength: 7,
    })
  })

  test('refuses a malformed request line with 400', () => {
    for (const line of [
      '',
      'GET',
      'GET /',
      'GET HTTP/1.1',
      ' GET / HTTP/1.1',
      'GET  / HTTP/1.1',
      'GET /  HTTP/1.1',
      'GET / HTTP/1.1 ',
      'GET /a b HTTP/1.1',
      'G@T / HTTP/1.1',
      'GET\t/ HTTP/1.1',
      'GET /\x00 HTTP/1.1',
      'GET /\r HTTP/1.1',
    ]) {
      expect(parse(line, 'Host: a'), JSON.stringify(line)).toMatchObject({
        refusal: 400,
        reason: 'malformed HTTP request: invalid request line',
      })
    }
  })

  test('accepts any token as the method', () => {
    expect(parse("M-S.E_A~R!C#H$%&'*+^`| / HTTP/1.1", 'Host: a')).toMatchObject({
      fields: { method: "M-S.E_A~R!C#H$%&'*+^`|" },
    })
  })

  test('keeps an HTTP/1.0 connection alive only on Connection: keep-alive', () => {
    const keepAlive = (...lines: string[]) => (parse('POST / HTTP/1.0', ...lines) as { keepAlive: boolean }).keepAlive
    expect(keepAlive()).toBe(false)
    expect(keepAlive('Connection: keep-alive')).toBe(true)
    expect(keepAlive('Connection: Keep-Alive')).toBe(true)
    expect(keepAlive('Connection: foo, keep-alive')).toBe(true)
    expect(keepAlive('Connection: keep-alive, close')).toBe(false)
    expect(keepAlive('Connection: keep-alive', 'Connection: close')).toBe(false)
    expect(keepAlive('Connection: keep-alive-ish')).toBe(false)
    expect(keepAlive('Connection: keep-alive', 'Transfer-Encoding: chunked')).toBe(false)
  })

  test('keeps an HTTP/1.1 connection alive unless Connection: close', () => {
    const keepAlive = (...lines: string[]) => (parse('POST / HTTP/1.1', 'Host: a', ...lines) as { keepAlive: boolean }).keepAlive
    expect(keepAlive()).toBe(true)
    expect(keepAlive('Connection: keep-alive')).toBe(true)
    expect(keepAlive('Connection: upgrade')).toBe(true)
    expect(keepAlive('Connection: closed')).toBe(true)
    expect(keepAlive('Connection: close')).toBe(false)
    expect(keepAlive('Connection: Close')).toBe(false)
    expect(keepAlive('Connection: upgrade,\tclose ')).toBe(false)
    expect(keepAlive('Connection: upgrade', 'Connection: close')).toBe(false)
  })

  test('refuses HTTP/2.0 and other well-formed versions with 505', () => {
    for (const version of ['HTTP/2.0', 'HTTP/0.9', 'HTTP/3.0']) {
      expect(parse(`GET / ${version}`, 'Host: a')).toStrictEqual({
        refusal: 505,
        reason: `${version} is not supported; use HTTP/1.1`,
      })
    }
  })

  test('refuses a garbage version with 400', () => {
    for (const version of ['HTTP/1', 'HTTP/11', 'HTTP/1.1x', 'http/1.1', 'HTTP/1.x', 'HTTPS/1.1', 'HTTP/10.0']) {
      expectRefused([`GET / ${version}`, 'Host: a'], 400, 'invalid request line')
    }
  })

  test('treats a higher HTTP/1 minor version as HTTP/1.1 (RFC 9112 §2.3)', () => {
    expect(parse('GET / HTTP/1.2', 'Host: a')).toMatchObject({ keepAlive: true })
    expect(parse('GET / HTTP/1.9', 'Host: a')).toMatchObject({ keepAlive: true })
  })

  test('requires exactly one Host in HTTP/1.1, none in HTTP/1.0', () => {
    expectRefused(['GET / HTTP/1.1'], 400, 'missing Host header')
    expectRefused(['GET / HTTP/1.1', 'Host: a', 'host: a'], 400, 'more than one Host header')
    expect(parse('GET / HTTP/1.0')).toMatchObject({ keepAlive: false, fields: { method: 'GET' } })
    expect(parse('GET / HTTP/1.1', 'Host:')).toMatchObject({ keepAlive: true })
  })

  test('refuses two Host headers in HTTP/1.0 too (RFC 9112 §3.2)', () => {
    expectRefused(['GET / HTTP/1.0', 'Host: a', 'Host: b'], 400)
  })

  test('refuses a Host that is not a valid authority (RFC 9112 §3.2)', () => {
    for (const host of ['a b', 'a/b', 'user@a', 'a:b:c:d']) {
      expectRefused(['GET / HTTP/1.1', `Host: ${host}`], 400)
    }
  })

  test('passes the parsed head along with a refusal found after the header lines', () => {
    const refused = parse('POST / HTTP/1.1', 'Origin: http://a', 'Content-Type: application/json')
    expect(refused).toMatchObject({
      refusal: 400,
      head: { fields: { method: 'POST', origin: 'http://a', contentType: 'application/json' } },
    })
  })

  test('refuses a Content-Length that is not one decimal number with 400', () => {
    for (const value of ['', '-1', '+1', '1.0', '0x10', '1 2', '1,1', '1e3', '١']) {
      expectRefused(['POST / HTTP/1.1', 'Host: a', `Content-Length: ${value}`], 400, 'invalid Content-Length')
    }
    expect(parse('POST / HTTP/1.1', 'Host: a', 'Content-Length: 0042')).toMatchObject({ contentLength: 42 })
  })

  test('refuses a duplicated Content-Length with 400, even with equal values', () => {
    const lines = ['POST / HTTP/1.1', 'Host: a', 'Content-Length: 3', 'Content-Length: 3']
    expectRefused(lines, 400, 'invalid Content-Length')
  })

  test('reads a huge Content-Length as too large rather than losing precision', () => {
    const head = parse('POST / HTTP/1.1', 'Host: a', `Content-Length: ${'9'.repeat(30)}`)
    expect((head as { contentLength: number }).contentLength).toBeGreaterThanOrEqual(Number.MAX_SAFE_INTEGER)
  })

  test('refuses Content-Length with Transfer-Encoding with 400', () => {
    for (const order of [
      ['Content-Length: 3', 'Transfer-Encoding: chunked'],
      ['Transfer-Encoding: chunked', 'Content-Length: 3'],
    ]) {
      expectRefused(['POST / HTTP/1.1', 'Host: a', ...order], 400, 'both Content-Length and Transfer-Encoding')
    }
  })

  test('refuses a Transfer-Encoding that does not end with chunked with 400', () => {
    for (const value of ['gzip', 'chunked, gzip', 'identity', '', 'chunked,']) {
      const lines = ['POST / HTTP/1.1', 'Host: a', `Transfer-Encoding: ${value}`]
      expectRefused(lines, 400, 'Transfer-Encoding must end with chunked')
    }
    expectRefused(['POST / HTTP/1.1', 'Host: a', 'Transfer-Encoding: chunked', 'Transfer-Encoding: gzip'], 400)
  })

  test('refuses codings before chunked with 501', () => {
    const reason = 'Transfer-Encoding gzip, chunked is not supported; use chunked'
    expectRefused(['POST / HTTP/1.1', 'Host: a', 'Transfer-Encoding: gzip, chunked'], 501, reason)
    expectRefused(['POST / HTTP/1.1', 'Host: a', 'Transfer-Encoding: gzip', 'Transfer-Encoding: chunked'], 501)
  })

  test('refuses an Expect other than 100-continue with 417', () => {
    expectRefused(['POST / HTTP/1.1', 'Host: a', 'Expect: 200-ok'], 417, 'Expect: 200-ok is not supported')
    expect(parse('POST / HTTP/1.1', 'Host: a', 'Expect: 100-continue')).toMatchObject({ expectContinue: true })
  })

  test('refuses obsolete line folding with 400', () => {
    for (const fold of [' folded', '\tfolded', ' X-B: b', '\tX-B: b']) {
      expectRefused(['POST / HTTP/1.1', 'Host: a', 'X-A: one', fold], 400, 'invalid header line')
    }
    expectRefused(['POST / HTTP/1.1', ' Host: a'], 400)
  })

  test('refuses bad header names with 400', () => {
    for (const line of ['Host : a', 'Ho st: a', ': a', 'no colon', 'X-A\x01: b', 'Höst: a']) {
      expect(parse('POST / HTTP/1.1', 'Host: a', line), JSON.stringify(line)).toMatchObject({ refusal: 400 })
    }
  })

  test('refuses control characters in a value with 400', () => {
    for (const value of ['a\nb', 'a\rb', 'a\x00b', 'a\x7fb', 'a\x1bb', '\x00']) {
      expect(parse('POST / HTTP/1.1', 'Host: a', `X-A: ${value}`), JSON.stringify(value)).toMatchObject({
        refusal: 400,
        reason: 'malformed HTTP request: invalid character in the X-A header',
      })
    }
  })

  test('accepts a tab and latin1 bytes inside a value', () => {
    expect(parse('POST / HTTP/1.1', 'Host: a', 'Authorization: Bearer\ta\xe9\xff')).toMatchObject({
      fields: { authorization: 'Bearer\ta\xe9\xff' },
    })
  })

  test('keeps the first Origin, Authorization and Content-Type', () => {
    expect(
      parse(
        'POST / HTTP/1.1',
        'Host: a',
        'Origin: first',
        'Authorization: first',
        'Content-Type: first',
        'Origin: second',
        'authorization: second',
        'content-type: second',
      ),
    ).toMatchObject({ fields: { origin: 'first', authorization: 'first', contentType: 'first' } })
  })
})

describe('parseChunkSize', () => {
  test('reads hex in either case', () => {
    expect(parseChunkSize('0')).toBe(0)
    expect(parseChunkSize('a')).toBe(10)
    expect(parseChunkSize('A')).toBe(10)
    expect(parseChunkSize('fF')).toBe(255)
    expect(parseChunkSize('400')).toBe(1024)
    expect(parseChunkSize('00010')).toBe(16)
    expect(parseChunkSize('ffffffffffff')).toBe(2 ** 48 - 1)
  })

  test('ignores extensions after a semicolon, with whitespace before it', () => {
    expect(parseChunkSize('1a;name')).toBe(26)
    expect(parseChunkSize('1a;name=value;other="quoted; text"')).toBe(26)
    expect(parseChunkSize('1a ;name')).toBe(26)
    expect(parseChunkSize('1a \t ;name')).toBe(26)
  })

  test('refuses empty, non-hex, signed, too long and control characters', () => {
    const invalid = ['', ';ext', ' ', 'g', '0x1a', '-1', '+1', '1 a', '1_0', '1000000000000', '1a;ext\x00', '1a;\n']
    for (const line of invalid) {
      expect(parseChunkSize(line), JSON.stringify(line)).toBeUndefined()
    }
  })

  test('refuses whitespace that is not before an extension (RFC 9112 §7.1)', () => {
    for (const line of [' 5', '\t5', '5 ', '5\t']) {
      expect(parseChunkSize(line), JSON.stringify(line)).toBeUndefined()
    }
  })
})

describe('formatHead', () => {
  const withoutDate = (text: string) => text.replace(/\r\nDate: [^\r\n]*\r\n/, '\r\n')

  test('sends a body as application/json with its length in bytes', () => {
    const text = formatHead({ status: 200, headers: 'X-A: 1\r\n', body: '{"a":"é€"}' }, true, 5000)
    expect(withoutDate(text)).toBe(
      'HTTP/1.1 200 OK\r\nX-A: 1\r\nContent-Type: application/json\r\nContent-Length: 13\r\n' +
        'Connection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n',
    )
  })

  test('sends Content-Length: 0 without a body', () => {
    expect(withoutDate(formatHead({ status: 500 }, false, 5000))).toBe(
      'HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
    )
  })

  test('sends no Content-Length or Content-Type in a 204', () => {
    expect(withoutDate(formatHead({ status: 204, headers: 'Vary: Origin\r\n' }, true, 65_000))).toBe(
      'HTTP/1.1 204 No Content\r\nVary: Origin\r\nConnection: keep-alive\r\nKeep-Alive: timeout=65\r\n\r\n',
    )
  })

  test('ends with Connection: close when not keeping the connection', () => {
    const text = formatHead({ status: 413, body: '{}' }, false, 5000)
    expect(text.endsWith('Content-Length: 2\r\nConnection: close\r\n\r\n')).toBe(true)
    expect(text).not.toContain('Keep-Alive')
  })

  test('names unknown statuses', () => {
    expect(formatHead({ status: 299 }, false, 5000)).toMatch(/^HTTP\/1\.1 299 Unknown\r\n/)
  })

  test('sends the current Date right after the status line', () => {
    const before = Math.floor(Date.now() / 1000) * 1000
    const text = formatHead({ status: 200 }, true, 5000)
    const after = Date.now()
    const imfFixdate = /(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT/
    const match = new RegExp(`^HTTP/1\\.1 200 OK\r\nDate: (${imfFixdate.source})\r\n`).exec(text)
    expect(match).not.toBeNull()
    // The header has whole seconds: the one the call began in, or a later one up to its end.
    expect(Date.parse(match![1]!)).toBeGreaterThanOrEqual(before)
    expect(Date.parse(match![1]!)).toBeLessThanOrEqual(after)
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Over sockets

describe('framing', () => {
  test('answers a request sent one byte at a time', async () => {
    const { port, calls } = await start()
    const client = await open(port)
    const bytes = Buffer.from(post('hello', 'Origin: http://o', 'Content-Type: text/plain'))
    for (const byte of bytes) {
      client.write(Buffer.from([byte]))
      await sleep(1)
    }
    const response = await client.response()
    expect(response.status).toBe(200)
    expect(response.headers['x-origin']).toBe('http://o')
    expect(bodyOf(response)).toEqual({ method: 'POST', origin: 'http://o', contentType: 'text/plain', body: 'hello' })
    expect(calls).toEqual(['hello'])
    await expectUsable(client)
  })

  test('answers two pipelined requests in order', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write(post('one', 'Authorization: a1') + post('two', 'Authorization: a2'))
    const [first, second] = await client.responses(2)
    expect(bodyOf(first!)).toMatchObject({ body: 'one', authorization: 'a1' })
    expect(bodyOf(second!)).toMatchObject({ body: 'two', authorization: 'a2' })
    expect(first!.headers.connection).toBe('keep-alive')
    expect(second!.headers.connection).toBe('keep-alive')
    await expectUsable(client)
  })

  test('answers 50 pipelined requests in one write in order', async () => {
    const { port, calls } = await start()
    const client = await open(port)
    const texts = Array.from({ length: 50 }, (_, i) => `request ${i}`)
    client.write(texts.map((text) => post(text)).join(''))
    const responses = await client.responses(50)
    expect(responses.map(echoed)).toEqual(texts)
    expect(calls).toEqual(texts)
    expect(client.unread()).toBe('')
  })

  test('keeps a later pipelined answer behind a slow first one', async () => {
    const { port, calls, release } = await start()
    const client = await open(port)
    client.write(post('slow') + post('fast'))
    await until('the slow request to be handled', () => calls.length > 0)
    // Both came in one write: a server that did not hold the second would have handed it over by now, or soon.
    await sleep(100)
    expect(calls).toEqual(['slow'])
    expect(client.unread()).toBe('')
    release()
    const responses = await client.responses(2)
    expect(responses.map(echoed)).toEqual(['slow', 'fast'])
  })

  test('holds a request that arrives while the previous one is being answered', async () => {
    const { port, calls, release } = await start()
    const client = await open(port)
    client.write(post('slow'))
    await until('the slow request to be handled', () => calls.length > 0)
    client.write(post('fast'))
    await sleep(100)
    expect(calls).toEqual(['slow'])
    expect(client.unread()).toBe('')
    release()
    const responses = await client.responses(2)
    expect(responses.map(echoed)).toEqual(['slow', 'fast'])
  })

  test('ignores empty lines before a request', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write(`\r\n\r\n${post('a')}\r\n${post('b')}`)
    expect((await client.responses(2)).map(echoed)).toEqual(['a', 'b'])
    client.write('\r\n')
    await sleep(20)
    client.write(post('c'))
    expect(echoed(await client.response())).toBe('c')
  })

  test('answers a body of exactly maxBodyBytes', async () => {
    const { port } = await start()
    const client = await open(port)
    const body = 'b'.repeat(limits.maxBodyBytes)
    client.write(post(body))
    const response = await client.response()
    expect(response.status).toBe(200)
    expect(echoed(response)).toBe(body)
  })

  test('refuses an announced Content-Length over the limit with 413 before the body arrives, and closes', async () => {
    const { port, calls, refusals } = await start()
    const client = await open(port)
    client.write('POST / HTTP/1.1\r\nHost: test\r\nOrigin: http://o\r\nContent-Length: 1025\r\n\r\n')
    const response = await client.response()
    expect(response.status).toBe(413)
    expect(bodyOf(response)).toEqual(refusal(413, 'request body exceeds the limit of 1024 bytes'))
    expect(refusals).toMatchObject([{ status: 413, head: { method: 'POST', origin: 'http://o' } }])
    expect(calls).toEqual([])
    await expectClosedAfter(client, response)
  })

  test('answers a HEAD request with headers only and keeps the connection usable', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write('HEAD / HTTP/1.1\r\nHost: test\r\n\r\n')
    const response = await client.response({ head: true })
    expect(response.status).toBe(200)
    expect(response.headers['content-type']).toBe('application/json')
    expect(Number(response.headers['content-length'])).toBe(JSON.stringify({ method: 'HEAD', body: '' }).length)
    await sleep(50)
    expect(client.unread()).toBe('')
    await expectUsable(client)
  })

  test('answers a rejecting handler with 500 and keeps the connection', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write(post('reject'))
    const response = await client.response()
    expect(response.status).toBe(500)
    expect(response.headers['content-length']).toBe('0')
    expect(response.body.length).toBe(0)
    await expectUsable(client)
  })

  test('answers a handler that throws instead of returning a promise with 500 and keeps the connection', async () => {
    const server = await createHttp1Server({
      host: '127.0.0.1',
      port: 0,
      limits,
      handle: () => {
        throw new Error('handler failed')
      },
      refuse: (status) => ({ status }),
    })
    servers.push(server)
    const client = await open(server.port)
    client.write(post('a'))
    expect((await client.response()).status).toBe(500)
    client.write(post('b'))
    expect((await client.response()).status).toBe(500)
    expect(client.isClosed).toBe(false)
  })

  test('answers a handler that returns an answer instead of a promise of one', async () => {
    const server = await createHttp1Server({
      host: '127.0.0.1',
      port: 0,
      limits,
      handle: ((request: Http1Request) => echo(request)) as never,
      refuse: (status) => ({ status }),
    })
    servers.push(server)
    const client = await open(server.port)
    client.write(post('plain'))
    expect(echoed(await client.response())).toBe('plain')
  })

  test('sends no body with a 204, even when the handler gives one', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write(post('no-content') + post('a'))
    const [noContent, next] = await client.responses(2)
    expect(noContent!.status).toBe(204)
    expect(noContent!.body.length).toBe(0)
    expect(echoed(next!)).toBe('a')
  })
})

describe('chunked bodies', () => {
  test('decodes chunks with extensions and trailers, split at awkward places', async () => {
    const { port } = await start()
    const client = await open(port)
    const pieces = [
      chunkedHead,
      '1',
      '0;name=value;quoted="a;b"\r\nabcdefghij',
      'klmnop',
      '\r',
      '\n3 ;x\r',
      '\nxyz\r\n0\r\nX-Trailer: 1\r\n',
      'Other-Trailer: 2\r\n',
      '\r',
      '\n',
    ]
    for (const piece of pieces) {
      client.write(piece)
      await sleep(5)
    }
    const response = await client.response()
    expect(response.status).toBe(200)
    expect(echoed(response)).toBe('abcdefghijklmnopxyz')
    await expectUsable(client)
  })

  test('decodes a body of many one-byte chunks, sent in pieces', async () => {
    const { port } = await start()
    const client = await open(port)
    const body = Array.from({ length: 1000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('')
    const wire = `${chunkedHead}${[...body].map((byte) => `1\r\n${byte}\r\n`).join('')}0\r\n\r\n`
    for (let at = 0; at < wire.length; at += 777) {
      client.write(wire.slice(at, at + 777))
      await sleep(1)
    }
    expect(echoed(await client.response())).toBe(body)
  })

  test('answers a pipelined request after a chunked one', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write(`${chunkedHead}2\r\nab\r\n0\r\n\r\n${post('next')}`)
    expect((await client.responses(2)).map(echoed)).toEqual(['ab', 'next'])
  })

  test('accepts a chunked body of exactly maxBodyBytes', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write(`${chunkedHead}200\r\n${'a'.repeat(512)}\r\n200\r\n${'b'.repeat(512)}\r\n0\r\n\r\n`)
    const response = await client.response()
    expect(response.status).toBe(200)
    expect(echoed(response)).toBe('a'.repeat(512) + 'b'.repeat(512))
  })

  test('refuses chunk data not followed by CRLF with 400, and closes', async () => {
    const { port, calls } = await start()
    for (const chunks of ['3\r\nabcX\r\n0\r\n\r\n', '3\r\nabc\n0\r\n\r\n']) {
      const client = await open(port)
      client.write(chunkedHead + chunks)
      const response = await client.response()
      expect(response.status).toBe(400)
      expect(bodyOf(response)).toEqual(refusal(400, 'Invalid request: malformed HTTP request: chunk data not followed by CRLF'))
      await expectClosedAfter(client, response)
    }
    expect(calls).toEqual([])
  })

  test('refuses an invalid chunk size with 400, and closes', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write(`${chunkedHead}xyz\r\nabc\r\n0\r\n\r\n`)
    const response = await client.response()
    expect(response.status).toBe(400)
    expect(bodyOf(response)).toEqual(refusal(400, 'Invalid request: malformed HTTP request: invalid chunk size'))
    await expectClosedAfter(client, response)
  })

  test('refuses a chunked body growing past maxBodyBytes with 413 before it ends, and closes', async () => {
    const { port, calls } = await start()
    const client = await open(port)
    client.write(`${chunkedHead}200\r\n${'a'.repeat(512)}\r\n200\r\n${'b'.repeat(512)}\r\n1\r\n`)
    const response = await client.response()
    expect(response.status).toBe(413)
    expect(bodyOf(response)).toEqual(refusal(413, 'request body exceeds the limit of 1024 bytes'))
    expect(calls).toEqual([])
    await expectClosedAfter(client, response)
  })

  test('refuses a chunk-size line still unterminated past 4096 bytes with 400, and closes', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write(`${chunkedHead}5;${'e'.repeat(4000)}`)
    await sleep(50)
    expect(client.unread()).toBe('')
    client.write('e'.repeat(100))
    const response = await client.response()
    expect(response.status).toBe(400)
    expect(bodyOf(response)).toEqual(refusal(400, 'Invalid request: malformed HTTP request: chunk size line too long'))
    await expectClosedAfter(client, response)
  })

  test('refuses a bare LF or CR in the trailer section with 400', async () => {
    const { port, calls } = await start()
    for (const trailers of ['\nX-Hidden: 1\r\n\r\n', 'X-A: 1\rX-B: 2\r\n\r\n']) {
      const client = await open(port)
      client.write(`${chunkedHead}2\r\nab\r\n0\r\n${trailers}`)
      const response = await client.response()
      expect(response.status).toBe(400)
      await expectClosedAfter(client, response)
    }
    expect(calls).toEqual([])
  })

  test('refuses a trailer line still unterminated past maxHeaderBytes with 431, and closes', async () => {
    const { port, calls } = await start()
    const client = await open(port)
    client.write(`${chunkedHead}2\r\nab\r\n0\r\nX-Trailer: ${'t'.repeat(1100)}`)
    const response = await client.response()
    expect(response.status).toBe(431)
    expect(bodyOf(response)).toEqual(refusal(431, 'request trailer section exceeds 1024 bytes'))
    expect(calls).toEqual([])
    await expectClosedAfter(client, response)
  })

  test('refuses a trailer section of many short lines past maxHeaderBytes with 431, and closes', async () => {
    const { port, calls } = await start()
    const client = await open(port)
    client.write(`${chunkedHead}2\r\nab\r\n0\r\n`)
    for (let i = 0; i < 100; i++) client.write('X-T: 0123456789\r\n')
    const response = await client.response()
    expect(response.status).toBe(431)
    expect(calls).toEqual([])
    await expectClosedAfter(client, response)
  })

  test('refuses a chunk-size line longer than 4096 bytes even when its CRLF came with it', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write(`${chunkedHead}5;${'e'.repeat(5000)}\r\nhello\r\n0\r\n\r\n`)
    const response = await client.response()
    expect(response.status).toBe(400)
    await expectClosedAfter(client, response)
  })

  test('closes after a chunked HTTP/1.0 request (RFC 9112 §6.1)', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write('POST / HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n')
    const response = await client.response()
    expect(response.status).toBe(200)
    expect(echoed(response)).toBe('abc')
    await expectClosedAfter(client, response)
  })
})

describe('Expect: 100-continue', () => {
  test('sends 100 Continue before the body, then the answer', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write('POST / HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n')
    const interim = await client.response()
    expect(interim.raw.toString('latin1')).toBe('HTTP/1.1 100 Continue\r\n\r\n')
    await sleep(50)
    expect(client.unread()).toBe('')
    client.write('hello')
    const response = await client.response()
    expect(response.status).toBe(200)
    expect(echoed(response)).toBe('hello')
    await expectUsable(client)
  })

  test('sends 100 Continue for a chunked body', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write('POST / HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n')
    expect((await client.response()).status).toBe(100)
    client.write('2\r\nhi\r\n0\r\n\r\n')
    expect(echoed(await client.response())).toBe('hi')
  })

  test('sends no 100 Continue when the body came with the head or there is none', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write(post('hello', 'Expect: 100-continue'))
    const first = await client.response()
    expect(first.status).toBe(200)
    expect(echoed(first)).toBe('hello')
    client.write(post('', 'Expect: 100-continue'))
    const second = await client.response()
    expect(second.status).toBe(200)
    expect(echoed(second)).toBe('')
  })

  test('refuses another expectation with 417, and closes', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write('POST / HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nExpect: something\r\n\r\n')
    const response = await client.response()
    expect(response.status).toBe(417)
    expect(bodyOf(response)).toEqual(refusal(417, 'Invalid request: Expect: something is not supported'))
    await expectClosedAfter(client, response)
  })

  test('ignores the expectation in an HTTP/1.0 request (RFC 9110 §10.1.1)', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write('POST / HTTP/1.0\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n')
    await sleep(100)
    expect(client.unread()).toBe('')
    client.write('hello')
    const response = await client.response()
    expect(response.status).toBe(200)
    expect(echoed(response)).toBe('hello')
  })
})

describe('malformed heads', () => {
  test('refuses a header section over maxHeaderBytes with 431, and closes', async () => {
    const { port, calls } = await start()
    const client = await open(port)
    client.write(`GET / HTTP/1.1\r\nHost: test\r\nX-Pad: ${'p'.repeat(1100)}\r\n\r\n`)
    const response = await client.response()
    expect(response.status).toBe(431)
    expect(bodyOf(response)).toEqual(refusal(431, 'request header section exceeds 1024 bytes'))
    expect(calls).toEqual([])
    await expectClosedAfter(client, response)
  })

  test('refuses an unterminated header section once it passes maxHeaderBytes, and closes', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write(`GET / HTTP/1.1\r\nHost: test\r\nX-Pad: ${'p'.repeat(600)}`)
    await sleep(50)
    expect(client.unread()).toBe('')
    client.write('p'.repeat(500))
    const response = await client.response()
    expect(response.status).toBe(431)
    await expectClosedAfter(client, response)
  })

  test('accepts a header section of exactly maxHeaderBytes with its blank line', async () => {
    const { port } = await start()
    const client = await open(port)
    const prefix = 'GET / HTTP/1.1\r\nHost: test\r\nX-Pad: '
    const exact = `${prefix}${'p'.repeat(limits.maxHeaderBytes - prefix.length - 4)}\r\n\r\n`
    expect(exact.length).toBe(limits.maxHeaderBytes)
    client.write(exact)
    expect((await client.response()).status).toBe(200)
    client.write(`${prefix}${'p'.repeat(limits.maxHeaderBytes - prefix.length - 3)}\r\n\r\n`)
    expect((await client.response()).status).toBe(431)
  })

  test('refuses a bad header line with 400, and answers nothing pipelined behind it', async () => {
    const { port, calls } = await start()
    const client = await open(port)
    client.write(`POST / HTTP/1.1\r\nHost: test\r\nX-A: a\r\n folded\r\nContent-Length: 0\r\n\r\n${post('smuggled')}`)
    const response = await client.response()
    expect(response.status).toBe(400)
    expect(bodyOf(response)).toEqual(refusal(400, 'Invalid request: malformed HTTP request: invalid header line'))
    expect(calls).toEqual([])
    await expectClosedAfter(client, response)
  })

  test('refuses Content-Length with Transfer-Encoding with 400, and closes', async () => {
    const { port, calls } = await start()
    const client = await open(port)
    client.write(`${chunkedHead.replace('\r\n\r\n', '\r\nContent-Length: 5\r\n\r\n')}0\r\n\r\n`)
    const response = await client.response()
    expect(response.status).toBe(400)
    expect(calls).toEqual([])
    await expectClosedAfter(client, response)
  })

  test('refuses HTTP/2.0 with 505, and closes', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write('GET / HTTP/2.0\r\nHost: test\r\n\r\n')
    const response = await client.response()
    expect(response.status).toBe(505)
    expect(response.head).toMatch(/^HTTP\/1\.1 505 HTTP Version Not Supported\r\n/)
    await expectClosedAfter(client, response)
  })

  test('answers a head with bare LF line endings with 400 without waiting for a timeout', async () => {
    const { port } = await start({ headersTimeout: 500 })
    const client = await open(port)
    client.write('GET / HTTP/1.1\nHost: test\n\n')
    const response = await client.response()
    expect(response.status).toBe(400)
  })

  test('answers a head whose last line ends in LF alone with 400 without waiting for a timeout', async () => {
    const { port } = await start({ headersTimeout: 60_000 })
    const client = await open(port)
    client.write('POST / HTTP/1.1\r\nHost: test\n\r\n')
    const response = await client.response()
    expect(response.status).toBe(400)
    await expectClosedAfter(client, response)
  })
})

describe('connection management', () => {
  test('closes an HTTP/1.0 connection after the answer', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write('POST / HTTP/1.0\r\nContent-Length: 2\r\n\r\nhi')
    const response = await client.response()
    expect(response.status).toBe(200)
    expect(echoed(response)).toBe('hi')
    expect(response.headers['keep-alive']).toBeUndefined()
    await expectClosedAfter(client, response)
  })

  test('keeps an HTTP/1.0 connection with Connection: keep-alive', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write('POST / HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nhi')
    const response = await client.response()
    expect(echoed(response)).toBe('hi')
    expect(response.headers.connection).toBe('keep-alive')
    expect(response.headers['keep-alive']).toBe('timeout=60')
    await sleep(50)
    await expectUsable(client)
  })

  test('closes an HTTP/1.1 connection after Connection: close, answering nothing after it', async () => {
    const { port, calls } = await start()
    const client = await open(port)
    client.write(post('last', 'Connection: close') + post('ignored'))
    const response = await client.response()
    expect(echoed(response)).toBe('last')
    await expectClosedAfter(client, response)
    expect(calls).toEqual(['last'])
  })

  test('closes when the handler asks to', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write(post('close'))
    const response = await client.response()
    expect(response.status).toBe(200)
    await expectClosedAfter(client, response)
  })

  test('answers a client that half-closes right after its request', async () => {
    const { port } = await start()
    const client = await open(port)
    client.write(post('bye'))
    client.socket.end()
    const response = await client.response()
    expect(response.status).toBe(200)
    expect(echoed(response)).toBe('bye')
    await client.closed()
  })

  test('answers with Connection: close a client that half-closed while its request was handled', async () => {
    const { port, release } = await start()
    const client = await open(port)
    client.write(post('slow'))
    await sleep(50)
    client.socket.end()
    await sleep(50)
    release()
    const response = await client.response()
    expect(echoed(response)).toBe('slow')
    await expectClosedAfter(client, response)
  })

  test('closes after answering a client that half-closed behind a blank line or part of a request', async () => {
    for (const leftover of ['\r\n', 'POST / HTTP/1.1\r\nHo']) {
      const { port, release } = await start()
      const client = await open(port)
      client.write(post('slow') + leftover)
      await sleep(50)
      client.socket.end()
      await sleep(50)
      release()
      const response = await client.response()
      expect(echoed(response)).toBe('slow')
      await client.closed()
      expect(client.unread()).toBe('')
    }
  })

  test('answers every pipelined request of a client that half-closed', async () => {
    const { port, release } = await start()
    const client = await open(port)
    client.write(post('slow') + post('a') + post('b'))
    client.socket.end()
    await sleep(50)
    release()
    const responses = await client.responses(3)
    expect(responses.map(echoed)).toEqual(['slow', 'a', 'b'])
    expect(responses.map((response) => response.headers.connection)).toEqual(['keep-alive', 'keep-alive', 'close'])
    await client.closed()
  })

  test('sends a latin1 Origin back byte for byte next to a UTF-8 body', async () => {
    const { port } = await start()
    const client = await open(port)
    const body = Buffer.from('héllo €', 'utf8')
    client.write(
      Buffer.concat([
        Buffer.from(`POST / HTTP/1.1\r\nHost: test\r\nOrigin: http://caf\xe9.test\r\n`, 'latin1'),
        Buffer.from(`Content-Length: ${body.length}\r\n\r\n`),
        body,
      ]),
    )
    const response = await client.response()
    expect(response.status).toBe(200)
    expect(response.raw.includes(Buffer.from('\r\nX-Origin: http://caf\xe9.test\r\n', 'latin1'))).toBe(true)
    expect(response.headers['x-origin']).toBe('http://café.test')
    expect(Number(response.headers['content-length'])).toBe(response.body.length)
    expect(bodyOf(response)).toMatchObject({ origin: 'http://café.test', body: 'héllo €' })
    await expectUsable(client)
  })

  test('stops answering while the client does not read, and delivers everything once it does', async () => {
    const { port, calls } = await start()
    const client = await open(port)
    const count = 100
    client.socket.pause()
    client.write(Array.from({ length: count }, (_, i) => post(`big:${i}`)).join(''))
    const handledWhilePaused = await untilSteady(calls)
    expect(handledWhilePaused).toBeLessThan(count)
    client.socket.resume()
    const responses = await client.responses(count, 5000)
    expect(responses.map((response) => (bodyOf(response) as { n: number }).n)).toEqual(Array.from({ length: count }, (_, i) => i))
    for (const response of responses) {
      expect(response.status).toBe(200)
      expect((bodyOf(response) as { bigPadding: string }).bigPadding).toBe(bigPadding)
    }
    expect(client.unread()).toBe('')
    await expectUsable(client)
  })

  test('stops reading from a client that sends one request at a time and never reads the answers', async () => {
    const { port, calls } = await start()
    const client = await open(port)
    client.socket.pause()
    const count = 60
    for (let i = 0; i < count; i++) {
      client.write(post(`big:${i}`))
      await sleep(5)
    }
    const handledWhilePaused = await untilSteady(calls)
    expect(handledWhilePaused).toBeLessThan(count)
    client.socket.resume()
    const responses = await client.responses(count, 5000)
    expect(responses.map((response) => (bodyOf(response) as { n: number }).n)).toEqual(Array.from({ length: count }, (_, i) => i))
    await expectUsable(client)
  })

  test('lets a client read a large answer after keepAliveTimeout has passed', async () => {
    const { port } = await start({ keepAliveTimeout: 200 })
    const client = await open(port)
    client.socket.pause()
    client.write(post('huge'))
    await sleep(800)
    expect(client.isClosed).toBe(false)
    client.socket.resume()
    const response = await client.response({ ms: 10_000 })
    expect((bodyOf(response) as { hugePadding: string }).hugePadding.length).toBe(hugePadding.length)
  })

  test('lets a client read a large last answer after the closing grace has started', async () => {
    const { port } = await start({ keepAliveTimeout: 200 })
    const client = await open(port)
    client.socket.pause()
    client.write(post('huge', 'Connection: close'))
    await sleep(800)
    client.socket.resume()
    const response = await client.response({ ms: 10_000 })
    expect((bodyOf(response) as { hugePadding: string }).hugePadding.length).toBe(hugePadding.length)
    await expectClosedAfter(client, response)
  })

  test('rejects when the port is taken, and leaves no sweep timer behind', async () => {
    const { port } = await start()
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    try {
      const taken = createHttp1Server({
        host: '127.0.0.1',
        port,
        limits,
        handle: async () => ({ status: 204 }),
        refuse: (status) => ({ status }),
      })
      await expect(taken).rejects.toMatchObject({ code: 'EADDRINUSE' })
      expect(vi.getTimerCount()).toBe(0)
    } finally {
      vi.useRealTimers()
    }
  })

  test('close() resolves with keep-alive connections open, and the port refuses afterwards', async () => {
    const { server, port } = await start()
    const client = await open(port)
    client.write(post('a'))
    expect((await client.response()).status).toBe(200)
    // A close() that waited for the client would never resolve: the test's timeout would end it.
    await server.close()
    await client.closed()
    const refused = new RawClient(connect({ host: '127.0.0.1', port }))
    clients.push(refused)
    await expect(refused.connected()).rejects.toMatchObject({ code: 'ECONNREFUSED' })
  })
})

describe('timeouts', () => {
  test('closes an idle keep-alive connection after keepAliveTimeout, silently', async () => {
    const { port } = await start({ keepAliveTimeout: 300 })
    const client = await open(port)
    // Taken before the request is sent, so before the server can start the timeout: a delay on a loaded machine
    // only lengthens what is measured, never shortens it.
    const sentAt = performance.now()
    client.write(post('a'))
    const response = await client.response()
    expect(response.headers.connection).toBe('keep-alive')
    await client.closed()
    // Never before the timeout it announced (Keep-Alive: timeout=0 here, so the exact figure is checked); a timer may
    // fire a millisecond early.
    expect(performance.now() - sentAt).toBeGreaterThanOrEqual(295)
    expect(client.unread()).toBe('')
  })

  test('closes a connection that sends nothing within keepAliveTimeout, silently', async () => {
    const { port } = await start({ keepAliveTimeout: 300 })
    // Taken before connecting, as the server starts the timeout when it accepts the connection.
    const openedAt = performance.now()
    const client = await open(port)
    await client.closed()
    expect(performance.now() - openedAt).toBeGreaterThanOrEqual(295)
    expect(client.unread()).toBe('')
  })

  test('answers a head that does not arrive within headersTimeout with 408, and closes', async () => {
    const { port } = await start({ headersTimeout: 300 })
    // Taken before connecting, the earliest the server could start the timeout.
    const openedAt = performance.now()
    const client = await open(port)
    client.write('POST / HTTP/1.1\r\nHost: test\r\n')
    const response = await client.response()
    expect(performance.now() - openedAt).toBeGreaterThanOrEqual(295)
    expect(response.status).toBe(408)
    expect(bodyOf(response)).toEqual(refusal(408, 'Invalid request: the request took too long to arrive'))
    await expectClosedAfter(client, response)
  })

  test('answers a body that does not arrive within requestTimeout with 408, and closes', async () => {
    const { port, calls, refusals } = await start({ requestTimeout: 300, headersTimeout: 300 })
    const client = await open(port)
    client.write('POST / HTTP/1.1\r\nHost: test\r\nOrigin: http://o\r\nContent-Length: 10\r\n\r\nhalf')
    const response = await client.response()
    expect(response.status).toBe(408)
    expect(refusals).toMatchObject([{ status: 408, head: { method: 'POST', origin: 'http://o' } }])
    expect(calls).toEqual([])
    await expectClosedAfter(client, response)
  })

  test('lets a handler take longer than every timeout', async () => {
    const { port, release } = await start({ keepAliveTimeout: 200, headersTimeout: 200, requestTimeout: 200 })
    const client = await open(port)
    client.write(post('slow'))
    await sleep(500)
    release()
    const response = await client.response()
    expect(response.status).toBe(200)
    expect(echoed(response)).toBe('slow')
    expect(response.headers.connection).toBe('keep-alive')
  })
})

describe('memory held for clients', () => {
  test('request bytes held across connections are capped: the one that goes over gets 503 and is closed', async () => {
    const { port } = await start({ maxBodyBytes: 1024 * 1024, maxBufferedBytes: 1024 * 1024 })
    const head = (length: number) => `POST / HTTP/1.1\r\nHost: test\r\nContent-Length: ${length}\r\n\r\n`
    const first = await open(port)
    first.write(head(1000 * 1024) + 'a'.repeat(700 * 1024))
    const second = await open(port)
    second.write(head(1000 * 1024) + 'b'.repeat(700 * 1024))
    const refused = await second.response()
    expect(refused.status).toBe(503)
    expect(bodyOf(refused)).toMatchObject({ status: 503, message: expect.stringMatching(/too many request bytes/) })
    await second.closed()
    // What the refused one held is given back: the first finishes its request, and a new one is served.
    first.write('a'.repeat(300 * 1024))
    expect((await first.response()).status).toBe(200)
    const third = await open(port)
    await expectUsable(third)
  })

  /** Resolves once the server holds no connection (bounded: 400 looks 50 ms apart). */
  async function untilDropped(server: Http1Server): Promise<void> {
    for (let look = 0; server.connections > 0; look++) {
      if (look === 400) throw new Error(`the server still holds ${server.connections} connection(s)`)
      await sleep(50)
    }
  }

  /**
   * Sends `body` on a new connection that reads nothing until the server has dropped it (`dropped`), or for `ms`;
   * how the connection ended for the client once it reads.
   */
  async function unread(
    { server, port }: Harness,
    body: string,
    until: { dropped: true } | { ms: number },
  ): Promise<{ closed: boolean; error: string | undefined; received: number }> {
    const socket = connect({ host: '127.0.0.1', port })
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    socket.pause()
    socket.write(post(body))
    let received = 0
    let error: string | undefined
    socket.on('data', (chunk: Buffer) => (received += chunk.length))
    socket.on('error', (cause: NodeJS.ErrnoException) => (error = cause.code))
    if ('dropped' in until) await untilDropped(server)
    else await sleep(until.ms)
    let bound: NodeJS.Timeout | undefined
    const closed = new Promise<boolean>((resolve) => {
      socket.once('close', () => resolve(true))
      bound = setTimeout(() => resolve(false), 20_000)
    })
    socket.resume()
    const result = { closed: await closed, error, received }
    clearTimeout(bound)
    socket.destroy()
    return result
  }

  test('a client that reads nothing of its answer for the write timeout is disconnected', async () => {
    // Reading resumes once the node has given up: the answer is cut short.
    const { closed, received } = await unread(await start({ writeTimeout: 300, maxBodyBytes: 64 }), 'huge', { dropped: true })
    expect(closed).toBe(true)
    expect(received).toBeLessThan(32 * 1024 * 1024)
  })

  test('an answer nobody reads is reset at the write timeout, not ended: an end would wait behind the answer', async () => {
    const { error, received } = await unread(await start({ writeTimeout: 300, maxBodyBytes: 64 }), 'huge', { dropped: true })
    expect(error).toBe('ECONNRESET')
    expect(received).toBeLessThan(32 * 1024 * 1024)
  })

  test('an answer the kernel took whole and nobody read is reset, not ended, when the connection times out', async () => {
    // 256 KiB: the sockets' buffers take all of it, so the server has nothing left to wait for.
    const harness = await start({ writeTimeout: 300, keepAliveTimeout: 300, maxBodyBytes: 64 })
    expect(await unread(harness, 'big:1', { dropped: true })).toMatchObject({ closed: true, error: 'ECONNRESET' })
    // A small answer's connection ends as an idle one does, with no reset (its end waits for the client to read).
    expect(await unread(harness, 'small', { ms: 2_500 })).toMatchObject({ closed: true, error: undefined })
  })
})
