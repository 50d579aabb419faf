/**
 * A lean HTTP/1.1 server for small JSON requests, over node:net.
 *
 * node:http spends about 4 µs of CPU per request beyond what the socket costs (Node 24, one keep-alive request
 * at a time per connection): an IncomingMessage stream and a ServerResponse per request, header objects, and
 * events for every step. A JSON-RPC endpoint needs little of that: a POST whose whole body it reads before it
 * answers, and one JSON text back. This module frames such requests (RFC 9112) and writes each response with one
 * socket write.
 *
 * What it does:
 * - HTTP/1.0 and 1.1 (a later 1.x is answered as 1.1, others get 505);
 * - keep-alive by default in HTTP/1.1, on request in HTTP/1.0; `Connection: close` honoured both ways;
 * - bodies by Content-Length or chunked (extensions and trailers checked and skipped), within a size limit;
 * - `Expect: 100-continue` in HTTP/1.1, answered with 100 Continue like node:http does by default;
 * - pipelining: requests on one connection are answered one at a time, in order, and the connection stops
 *   reading while the client does not read what it was sent;
 * - limits: the header section's size, the body's size, and the headers, request and keep-alive timeouts;
 * - malformed framing (bad request line, header line, Host, Content-Length, chunk or trailer; both Content-Length
 *   and Transfer-Encoding; obsolete line folding; bare CR or LF) is answered with 400 and the connection is closed,
 *   as a request smuggled behind it could not be told apart. Every refusal closes the connection.
 */
import { createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

import { InvalidRequestError, LimitExceededError, type RpcError } from '../errors.ts'

/** The parts of a request's head the JSON-RPC server reads. Header values as sent, the first of each name. */
export type Http1Head = {
  method: string
  contentType: string | undefined
  origin: string | undefined
  authorization: string | undefined
}

export type Http1Request = Http1Head & { body: Buffer }

export type Http1Response = {
  status: number
  /** Header lines, each ending in CRLF; Date, Content-Type, Content-Length and Connection are added. */
  headers?: string | undefined
  /** A JSON text, sent as `application/json`; none for 204. */
  body?: string | undefined
  /** Closes the connection once this response is written. */
  close?: boolean | undefined
}

export type Http1Limits = {
  maxHeaderBytes: number
  maxBodyBytes: number
  /** How long a connection may stay idle between requests, in ms. */
  keepAliveTimeout: number
  /** How long a request's header section may take to arrive, in ms. */
  headersTimeout: number
  /** How long a whole request may take to arrive, in ms. */
  requestTimeout: number
}

export type CreateHttp1ServerOptions = {
  host: string
  /** 0 picks a free port; the real one is in the result. */
  port: number
  limits: Http1Limits
  /** Answers a complete request. Must not reject: a rejection is answered with 500 and logged by the caller. */
  handle: (request: Http1Request) => Promise<Http1Response>
  /**
   * Answers a request the transport refuses (400, 408, 413, 417, 431, 501, 505). `head` is there when the
   * request's head could be read. The connection is closed after it whatever the response says.
   */
  refuse: (status: number, error: RpcError, head: Http1Head | undefined) => Http1Response
}

export type Http1Server = {
  port: number
  /** Stops accepting, drops open connections, and resolves once the server is closed. */
  close(): Promise<void>
}

export async function createHttp1Server(options: CreateHttp1ServerOptions): Promise<Http1Server> {
  const { limits } = options
  clock.now = Date.now()
  const connections = new Set<Connection>()
  // allowHalfOpen: a client may end its side after its request and still read the answer.
  const server = createServer({ noDelay: true, allowHalfOpen: true }, (socket) => {
    const connection = new Connection(socket, options)
    connections.add(connection)
    socket.once('close', () => connections.delete(connection))
  })

  // One clock and one sweep for every connection's deadline, instead of a timer per connection or request.
  const sweepEvery = Math.max(10, Math.min(1000, limits.keepAliveTimeout / 4, limits.headersTimeout / 4))
  const sweep = setInterval(() => {
    clock.now = Date.now()
    for (const connection of connections) connection.checkDeadline()
  }, sweepEvery).unref()

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host: options.host, port: options.port }, () => {
      server.off('error', reject)
      resolve()
    })
  })

  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(sweep)
        // Resolves also when the server was already closed: close() is for shutdown paths, which must not throw.
        server.close(() => resolve())
        for (const connection of connections) connection.socket.destroy()
      }),
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Connections

/** A coarse clock, ticked by the sweep: deadlines are whole seconds or more, and reading it costs nothing. */
const clock = { now: Date.now() }

const CRLF_CRLF = Buffer.from('\r\n\r\n')
const CRLF = Buffer.from('\r\n')
const LF_LF = Buffer.from('\n\n')
const EMPTY = Buffer.alloc(0)
const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n'
/** How long a closing connection may take to drain before it is dropped, in ms. */
const closingGrace = 5_000
/** A chunk-size line (hex size and extensions) longer than this is refused. */
const maxChunkLineBytes = 4096

type Phase =
  /** Between requests, nothing buffered. */
  | 'idle'
  /** Part of a head has arrived. */
  | 'head'
  /** The head has arrived; reading a Content-Length body. */
  | 'body'
  /** The head has arrived; reading a chunked body. */
  | 'chunked'
  /** The handler is answering; later bytes wait in the buffer. */
  | 'busy'
  /** Waiting for the socket to drain before reading the next request. */
  | 'draining'
  /** The last response is written or being written; everything else is ignored. */
  | 'closing'

type ChunkState = { step: 'size' } | { step: 'data'; left: number } | { step: 'data-end' } | { step: 'trailers' }

class Connection {
  readonly socket: Socket
  readonly #options: CreateHttp1ServerOptions
  readonly #limits: Http1Limits
  #phase: Phase = 'idle'
  #deadline: number
  /** Bytes received and not yet consumed. */
  #buffer: Buffer = EMPTY
  /** Where the search for the end of the head resumes. */
  #headScanned = 0
  #head: ParsedHead | undefined
  #bodyParts: Buffer[] = []
  #bodyLength = 0
  /** Bytes of a Content-Length body still to come. */
  #bodyLeft = 0
  #chunk: ChunkState = { step: 'size' }
  /** The request began at this clock time (for requestTimeout). */
  #requestStart = 0
  #peerEnded = false

  constructor(socket: Socket, options: CreateHttp1ServerOptions) {
    this.socket = socket
    this.#options = options
    this.#limits = options.limits
    this.#deadline = clock.now + this.#limits.keepAliveTimeout
    socket.on('data', (chunk: Buffer) => this.#receive(chunk))
    socket.on('end', () => this.#onPeerEnd())
    // A reset or write error destroys the socket; 'close' follows. Nothing is left to answer.
    socket.on('error', () => {})
  }

  checkDeadline(): void {
    if (clock.now < this.#deadline) return
    switch (this.#phase) {
      case 'head':
      case 'body':
      case 'chunked':
        this.#refuse(408, new InvalidRequestError('the request took too long to arrive'), this.#head)
        return
      case 'busy':
        return
      default:
        this.socket.destroy()
    }
  }

  #receive(chunk: Buffer): void {
    if (this.#phase === 'closing') return
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk])
    switch (this.#phase) {
      case 'busy':
      case 'draining':
        // Pipelined bytes wait for the answer in progress; reading more could only pile them up.
        this.socket.pause()
        return
      default:
        this.#advance()
    }
  }

  #onPeerEnd(): void {
    this.#peerEnded = true
    // A request in progress is still answered (and the connection closed after it); a partial one never will be.
    if (this.#phase !== 'busy' && this.#phase !== 'draining' && this.#phase !== 'closing') this.#close()
  }

  /** Consumes buffered bytes until a request is handed to the handler or more bytes are needed. */
  #advance(): void {
    for (;;) {
      switch (this.#phase) {
        case 'idle':
          if (this.#buffer.length === 0) return
          this.#phase = 'head'
          this.#requestStart = clock.now
          this.#deadline = clock.now + this.#limits.headersTimeout
          continue
        case 'head':
          if (!this.#readHead()) return
          continue
        case 'body':
          if (!this.#readBody()) return
          this.#dispatch()
          return
        case 'chunked':
          if (!this.#readChunks()) return
          this.#dispatch()
          return
        default:
          return
      }
    }
  }

  /** Returns whether the phase moved on (to a body, or to closing after a refusal). */
  #readHead(): boolean {
    let buffer = this.#buffer
    // RFC 9112 §2.2: empty lines before a request line are ignored (some clients send CRLF after a body).
    let start = 0
    while (start + 1 < buffer.length && buffer[start] === 0x0d && buffer[start + 1] === 0x0a) start += 2
    if (start > 0) {
      buffer = this.#buffer = buffer.subarray(start)
      this.#headScanned = 0
      if (buffer.length === 0) {
        this.#phase = 'idle'
        this.#deadline = clock.now + this.#limits.keepAliveTimeout
        return true
      }
    }
    const end = buffer.indexOf(CRLF_CRLF, this.#headScanned)
    if (end === -1) {
      // A head whose lines end in LF alone would never be found; a blank line made of LFs tells it apart.
      if (buffer.indexOf(LF_LF, Math.max(0, this.#headScanned - 1)) !== -1) {
        this.#malformed('lines must end with CRLF')
        return true
      }
      if (buffer.length > this.#limits.maxHeaderBytes) {
        this.#refuse(431, headTooLarge(this.#limits.maxHeaderBytes))
        return true
      }
      this.#headScanned = Math.max(0, buffer.length - 3)
      return false
    }
    this.#headScanned = 0
    if (end + 4 > this.#limits.maxHeaderBytes) {
      this.#refuse(431, headTooLarge(this.#limits.maxHeaderBytes))
      return true
    }
    const head = parseHead(buffer.toString('latin1', 0, end))
    if ('refusal' in head) {
      this.#refuse(head.refusal, new InvalidRequestError(head.reason), head.head)
      return true
    }
    this.#head = head
    this.#buffer = buffer.subarray(end + 4)
    this.#bodyParts = []
    this.#bodyLength = 0
    this.#deadline = this.#requestStart + this.#limits.requestTimeout

    const { maxBodyBytes } = this.#limits
    if (head.contentLength !== undefined && head.contentLength > maxBodyBytes) {
      // Refused before a byte of it is read; the connection closes, so the rest is never parsed as a request.
      this.#refuse(413, bodyTooLarge(maxBodyBytes), head)
      return true
    }
    if (head.chunked) {
      this.#phase = 'chunked'
      this.#chunk = { step: 'size' }
    } else {
      this.#phase = 'body'
      this.#bodyLeft = head.contentLength ?? 0
    }
    if (head.expectContinue && this.#buffer.length === 0 && (head.chunked || this.#bodyLeft > 0)) {
      this.socket.write(CONTINUE)
    }
    return true
  }

  /** Takes Content-Length body bytes off the buffer; returns whether the body is complete. */
  #readBody(): boolean {
    const buffer = this.#buffer
    if (this.#bodyLeft === 0) return true
    if (buffer.length === 0) return false
    const take = Math.min(this.#bodyLeft, buffer.length)
    this.#bodyParts.push(take === buffer.length ? buffer : buffer.subarray(0, take))
    this.#bodyLength += take
    this.#bodyLeft -= take
    this.#buffer = take === buffer.length ? EMPTY : buffer.subarray(take)
    return this.#bodyLeft === 0
  }

  /** Decodes chunked body bytes off the buffer; returns whether the body (with its trailers) is complete. */
  #readChunks(): boolean {
    for (;;) {
      const buffer = this.#buffer
      const chunk = this.#chunk
      switch (chunk.step) {
        case 'size': {
          const lineEnd = buffer.indexOf(CRLF)
          if (lineEnd > maxChunkLineBytes || (lineEnd === -1 && buffer.length > maxChunkLineBytes)) {
            return this.#malformed('chunk size line too long')
          }
          if (lineEnd === -1) return false
          const size = parseChunkSize(buffer.toString('latin1', 0, lineEnd))
          if (size === undefined) return this.#malformed('invalid chunk size')
          this.#buffer = buffer.subarray(lineEnd + 2)
          if (size === 0) {
            this.#chunk = { step: 'trailers' }
          } else if (this.#bodyLength + size > this.#limits.maxBodyBytes) {
            this.#refuse(413, bodyTooLarge(this.#limits.maxBodyBytes), this.#head)
            return false
          } else {
            this.#chunk = { step: 'data', left: size }
          }
          continue
        }
        case 'data': {
          if (buffer.length === 0) return false
          const take = Math.min(chunk.left, buffer.length)
          this.#bodyParts.push(buffer.subarray(0, take))
          this.#bodyLength += take
          this.#buffer = buffer.subarray(take)
          this.#chunk = take === chunk.left ? { step: 'data-end' } : { step: 'data', left: chunk.left - take }
          continue
        }
        case 'data-end':
          if (buffer.length < 2) return false
          if (buffer[0] !== 0x0d || buffer[1] !== 0x0a) return this.#malformed('chunk data not followed by CRLF')
          this.#buffer = buffer.subarray(2)
          this.#chunk = { step: 'size' }
          continue
        case 'trailers': {
          // Trailer fields are read past, never used; an empty line ends them and the message.
          const lineEnd = buffer.indexOf(CRLF)
          if (lineEnd === -1) {
            if (buffer.length > this.#limits.maxHeaderBytes) return this.#malformed('trailer section too long')
            return false
          }
          if (lineEnd > 0 && !isFieldLine(buffer.toString('latin1', 0, lineEnd))) {
            return this.#malformed('invalid trailer line')
          }
          this.#buffer = buffer.subarray(lineEnd + 2)
          if (lineEnd === 0) return true
          continue
        }
      }
    }
  }

  #malformed(reason: string): false {
    this.#refuse(400, new InvalidRequestError(`malformed HTTP request: ${reason}`), this.#head)
    return false
  }

  #dispatch(): void {
    const head = this.#head!
    const parts = this.#bodyParts
    const body = parts.length === 1 ? parts[0]! : Buffer.concat(parts, this.#bodyLength)
    this.#bodyParts = []
    this.#phase = 'busy'
    this.#deadline = Number.POSITIVE_INFINITY
    // The handler promises not to throw or reject; if it does anyway, the client still gets an answer.
    let answer: Promise<Http1Response>
    try {
      answer = this.#options.handle({ ...head.fields, body })
    } catch {
      answer = Promise.resolve({ status: 500 })
    }
    answer.then(
      (response) => this.#respond(response, head),
      () => this.#respond({ status: 500 }, head),
    )
  }

  #respond(response: Http1Response, head: ParsedHead): void {
    const socket = this.socket
    if (socket.destroyed) return
    // A client that ended its side gets the answers to what it sent, then the connection closes.
    const keepAlive = head.keepAlive && response.close !== true && !(this.#peerEnded && this.#buffer.length === 0)
    this.#write(response, keepAlive, head)
    if (!keepAlive) return this.#close()
    this.#head = undefined
    this.#phase = 'idle'
    this.#deadline = clock.now + this.#limits.keepAliveTimeout
    if (this.#buffer.length === 0) return
    // A pipelined request is waiting. Go on only once the client has read what it was sent so far.
    if (socket.writableNeedDrain) {
      this.#phase = 'draining'
      socket.once('drain', () => {
        if (this.#phase !== 'draining') return
        this.#phase = 'idle'
        this.#continue()
      })
      return
    }
    this.#continue()
  }

  /** Writes the response with one socket write (two, corked, when a header value is not ASCII). */
  #write(response: Http1Response, keepAlive: boolean, head: ParsedHead | undefined): void {
    const text = formatHead(response, keepAlive, this.#limits.keepAliveTimeout)
    const body = response.status === 204 || head?.fields.method === 'HEAD' ? undefined : response.body
    if (response.headers === undefined || isAscii(response.headers)) {
      this.socket.write(body === undefined ? text : text + body)
      return
    }
    // Header values are latin1 (as they were read); the body is UTF-8.
    this.socket.cork()
    this.socket.write(text, 'latin1')
    if (body !== undefined) this.socket.write(body)
    this.socket.uncork()
  }

  #continue(): void {
    this.socket.resume()
    this.#advance()
  }

  /** Answers with a refusal and closes: after a framing error, the rest of the stream cannot be trusted. */
  #refuse(status: number, error: RpcError, head?: ParsedHead): void {
    this.#write(this.#options.refuse(status, error, head?.fields), false, head)
    this.#close()
  }

  #close(): void {
    this.#phase = 'closing'
    this.#buffer = EMPTY
    this.#bodyParts = []
    this.#deadline = clock.now + closingGrace
    // Keep reading (and dropping) what the client still sends: a socket closed with unread bytes is reset, and the
    // reset can destroy the response before the client reads it.
    this.socket.resume()
    this.socket.end()
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing

export type ParsedHead = {
  fields: Http1Head
  /** HTTP/1.1 unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`. */
  keepAlive: boolean
  contentLength: number | undefined
  chunked: boolean
  expectContinue: boolean
}

export type HeadRefusal = { refusal: number; reason: string; head?: ParsedHead | undefined }

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/** Control characters other than HTAB, which no header value or request line may hold (bare CR and LF among them). */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/
const DIGITS = /^[0-9]+$/
/** RFC 9112 §3.2's `uri-host [":" port]`: an IP literal in brackets or a reg-name (possibly empty), then a port. */
const HOST = /^(?:\[[0-9A-Za-z:.]+\]|[0-9A-Za-z\-._~!$&'()*+,;=%]*)(?::[0-9]*)?$/

/** Parses a request's head: the text before the blank line, decoded as latin1. */
export function parseHead(text: string): ParsedHead | HeadRefusal {
  const lines = text.split('\r\n')
  const requestLine = lines[0]!
  const firstSpace = requestLine.indexOf(' ')
  const lastSpace = requestLine.lastIndexOf(' ')
  if (firstSpace <= 0 || lastSpace === firstSpace || CONTROL.test(requestLine)) return malformed('invalid request line')
  const method = requestLine.slice(0, firstSpace)
  const target = requestLine.slice(firstSpace + 1, lastSpace)
  const version = requestLine.slice(lastSpace + 1)
  if (!TOKEN.test(method) || target.length === 0 || target.includes(' ')) return malformed('invalid request line')
  // RFC 9112 §2.3: a later HTTP/1 minor version is answered as HTTP/1.1.
  const minor = version === 'HTTP/1.0' ? 0 : /^HTTP\/1\.[1-9]$/.test(version) ? 1 : undefined
  if (minor === undefined) {
    return /^HTTP\/[0-9]\.[0-9]$/.test(version)
      ? { refusal: 505, reason: `${version} is not supported; use HTTP/1.1` }
      : malformed('invalid request line')
  }

  const fields: Http1Head = { method, contentType: undefined, origin: undefined, authorization: undefined }
  let contentLength: number | undefined
  let transferEncoding: string | undefined
  let connection = ''
  let expect: string | undefined
  let hosts = 0
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!
    const colon = line.indexOf(':')
    // A line starting with whitespace is obsolete line folding (RFC 9112 §5.2), refused like node:http does.
    if (colon <= 0 || line.charCodeAt(0) === 0x20 || line.charCodeAt(0) === 0x09) return malformed('invalid header line')
    const name = line.slice(0, colon)
    if (!TOKEN.test(name)) return malformed('invalid header name')
    const value = trimWhitespace(line.slice(colon + 1))
    if (CONTROL.test(value)) return malformed(`invalid character in the ${name} header`)
    switch (name.toLowerCase()) {
      case 'content-length':
        // One decimal length. Two of them, even equal ones, are refused: a proxy might have used the other.
        if (contentLength !== undefined || !DIGITS.test(value)) return malformed('invalid Content-Length')
        contentLength = value.length > 15 ? Number.MAX_SAFE_INTEGER : Number(value)
        break
      case 'transfer-encoding':
        transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`
        break
      case 'connection':
        connection += `,${value.toLowerCase()}`
        break
      case 'expect':
        expect = value.toLowerCase()
        break
      case 'host':
        hosts++
        if (!HOST.test(value)) return malformed('invalid Host header')
        break
      case 'content-type':
        fields.contentType ??= value
        break
      case 'origin':
        fields.origin ??= value
        break
      case 'authorization':
        fields.authorization ??= value
        break
    }
  }

  const tokens = connection.split(',').map(trimWhitespace)
  const head: ParsedHead = {
    fields,
    keepAlive: minor === 1 ? !tokens.includes('close') : tokens.includes('keep-alive') && !tokens.includes('close'),
    contentLength,
    chunked: false,
    // RFC 9110 §10.1.1: an HTTP/1.0 client cannot take a 100, so its expectation is ignored.
    expectContinue: minor === 1 && expect === '100-continue',
  }
  // RFC 9112 §3.2: a request with two Hosts, or an HTTP/1.1 request without one, is answered with 400.
  if (hosts > 1) return malformed('more than one Host header', head)
  if (minor === 1 && hosts === 0) return malformed('missing Host header', head)
  if (transferEncoding !== undefined) {
    // Both framings at once is how requests get smuggled past a proxy (RFC 9112 §6.3); refused outright.
    if (contentLength !== undefined) return malformed('both Content-Length and Transfer-Encoding', head)
    const codings = transferEncoding.toLowerCase().split(',').map(trimWhitespace)
    if (codings.at(-1) !== 'chunked') return malformed('Transfer-Encoding must end with chunked', head)
    if (codings.length > 1) {
      return { refusal: 501, reason: `Transfer-Encoding ${transferEncoding} is not supported; use chunked`, head }
    }
    head.chunked = true
    // RFC 9112 §6.1: chunked framing in an HTTP/1.0 request is suspect; answer it, then close.
    if (minor === 0) head.keepAlive = false
  }
  if (minor === 1 && expect !== undefined && expect !== '100-continue') {
    return { refusal: 417, reason: `Expect: ${expect} is not supported`, head }
  }
  return head
}

/** Whether a trailer line is `name: value` with a token name and no control characters. */
function isFieldLine(line: string): boolean {
  const colon = line.indexOf(':')
  return colon > 0 && TOKEN.test(line.slice(0, colon)) && !CONTROL.test(line)
}

function malformed(reason: string, head?: ParsedHead): HeadRefusal {
  return { refusal: 400, reason: `malformed HTTP request: ${reason}`, head }
}

/** A chunk-size line's size (hex, before any `;extension`), or undefined when it is not one. */
export function parseChunkSize(line: string): number | undefined {
  // RFC 9112 §7.1: the size is bare hex digits; whitespace may only come before an extension's `;`.
  const semicolon = line.indexOf(';')
  const hex = semicolon === -1 ? line : trimTrailingWhitespace(line.slice(0, semicolon))
  // 12 hex digits exceed any body limit while staying exact as a number.
  if (!/^[0-9a-fA-F]{1,12}$/.test(hex) || CONTROL.test(line)) return undefined
  return Number.parseInt(hex, 16)
}

function trimTrailingWhitespace(text: string): string {
  let end = text.length
  while (end > 0 && (text.charCodeAt(end - 1) === 0x20 || text.charCodeAt(end - 1) === 0x09)) end--
  return end === text.length ? text : text.slice(0, end)
}

/** Trims spaces and tabs only: String.prototype.trim would also take latin1's no-break space off a value. */
function trimWhitespace(text: string): string {
  let start = 0
  let end = text.length
  while (start < end && (text.charCodeAt(start) === 0x20 || text.charCodeAt(start) === 0x09)) start++
  while (end > start && (text.charCodeAt(end - 1) === 0x20 || text.charCodeAt(end - 1) === 0x09)) end--
  return start === 0 && end === text.length ? text : text.slice(start, end)
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

const REASONS: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  505: 'HTTP Version Not Supported',
}

/** The Date header's value, made again at most once a second (as node:http does). */
let date = { second: -1, text: '' }

function httpDate(): string {
  const now = Date.now()
  const second = Math.floor(now / 1000)
  if (second !== date.second) date = { second, text: new Date(now).toUTCString() }
  return date.text
}

/** The status line and header section of a response, ending with the blank line. */
export function formatHead(response: Http1Response, keepAlive: boolean, keepAliveTimeout: number): string {
  const { status, headers = '', body } = response
  let text = `HTTP/1.1 ${status} ${REASONS[status] ?? 'Unknown'}\r\nDate: ${httpDate()}\r\n${headers}`
  // RFC 9110 §8.6: no Content-Length in a 204.
  if (status !== 204) {
    text +=
      body === undefined
        ? 'Content-Length: 0\r\n'
        : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
  }
  return keepAlive
    ? `${text}Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(keepAliveTimeout / 1000)}\r\n\r\n`
    : `${text}Connection: close\r\n\r\n`
}

function isAscii(text: string): boolean {
  return !/[^\x00-\x7f]/.test(text)
}

function headTooLarge(maxHeaderBytes: number): LimitExceededError {
  return new LimitExceededError(`request header section exceeds ${maxHeaderBytes} bytes`)
}

function bodyTooLarge(maxBodyBytes: number): LimitExceededError {
  return new LimitExceededError(`request body exceeds the limit of ${maxBodyBytes} bytes`)
}
