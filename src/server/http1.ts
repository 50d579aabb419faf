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
 *   as a request smuggled behind it could not be told apart. Every refusal closes the connection;
 * - a connection cap: a connection beyond it is answered 503 at its first request and closed;
 * - `Upgrade: websocket`: the request's socket is handed over, with the bytes already read after the head, to the
 *   `upgrade` callback, which speaks the new protocol from then on (the socket still counts against the cap).
 */
import { createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

import { InvalidRequestError, LimitExceededError, type RpcError } from '../rpc/errors.ts'
import type { OutputBudget } from './outputBudget.ts'

/** The parts of a request's head the JSON-RPC server reads. Header values as sent, the first of each name. */
export type Http1Head = {
  method: string
  /** The request target as sent: a path with its query, for the requests a browser makes. */
  target: string
  /** The Host header, as sent. */
  host: string | undefined
  contentType: string | undefined
  origin: string | undefined
  authorization: string | undefined
}

export type Http1Request = Http1Head & { body: Buffer }

/**
 * A request to switch to the WebSocket protocol (RFC 6455 §4.2.1): its target, and the headers a WebSocket server
 * reads, by lower-case name (`upgrade`, `connection` and the `sec-websocket-*` ones), the first of each.
 */
export type Http1Upgrade = Http1Head & { headers: Record<string, string> }

export type Http1Response = {
  status: number
  /**
   * Header lines, each ending in CRLF; Date, Content-Type, Content-Length and Connection are added. Written as given:
   * a value taken from a request must come from a parsed head, which holds no CR or LF.
   */
  headers?: string | undefined
  /** A JSON text unless `contentType` says otherwise; none for 204. */
  body?: string | Buffer | undefined
  /** Default `application/json`. */
  contentType?: string | undefined
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
  /**
   * Bytes of requests held at once across every connection (heads and bodies still arriving): past it, the
   * connection whose bytes went over is answered 503 (-32005) and closed, so that many slow partial bodies cannot
   * take the process's memory.
   */
  maxBufferedBytes: number
  /** How long a response may sit unread (no byte taken by the client) before the connection is closed, in ms. */
  writeTimeout: number
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
  /**
   * Takes over a socket whose request asked for `Upgrade: websocket`; `head` holds the bytes read after the
   * request's head. Without it, such a request is answered as any other.
   */
  upgrade?: ((request: Http1Upgrade, socket: Socket, head: Buffer) => void) | undefined
  /** Most connections open at once, upgraded ones included; default unlimited. */
  maxConnections?: number | undefined
  /**
   * What the node holds for its clients to read, across connections: an HTTP answer counts until the kernel takes it,
   * and the connection furthest behind is reset when the total is passed.
   */
  outputBudget?: OutputBudget | undefined
}

export type Http1Server = {
  port: number
  /** Stops accepting, drops open connections, and resolves once the server is closed. */
  close(): Promise<void>
}

export async function createHttp1Server(options: CreateHttp1ServerOptions): Promise<Http1Server> {
  const { limits } = options
  const connections = new Set<Connection>()
  const buffered: BufferBudget = { used: 0, max: limits.maxBufferedBytes }
  const maxConnections = options.maxConnections ?? Number.POSITIVE_INFINITY
  /** Connections within the cap; those refused for being over it do not count. */
  let admitted = 0
  // allowHalfOpen: a client may end its side after its request and still read the answer.
  const server = createServer({ noDelay: true, allowHalfOpen: true }, (socket) => {
    const overCap = admitted >= maxConnections
    const connection = new Connection(socket, options, buffered, overCap)
    connections.add(connection)
    if (!overCap) admitted++
    socket.once('close', () => {
      connections.delete(connection)
      connection.release()
      connection.leaveOutputBudget()
      if (!overCap) admitted--
    })
  })
  // Connections refused with a 503 still take memory until they close; beyond this many, the OS socket is dropped.
  if (Number.isFinite(maxConnections)) server.maxConnections = maxConnections + refusedConnectionsSlack

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host: options.host, port: options.port }, () => {
      server.off('error', reject)
      resolve()
    })
  })

  // One sweep for every connection's deadline, instead of a timer per connection or request. A deadline is met at
  // most one sweep late, never early: a client told `Keep-Alive: timeout=65` may count on 65 s.
  const sweepEvery = Math.max(10, Math.min(1000, limits.keepAliveTimeout / 4, limits.headersTimeout / 4))
  const sweep = setInterval(() => {
    const now = Date.now()
    for (const connection of connections) connection.checkDeadline(now)
  }, sweepEvery).unref()

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

const CRLF_CRLF = Buffer.from('\r\n\r\n')
const CRLF = Buffer.from('\r\n')
const EMPTY = Buffer.alloc(0)
const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n'
/** How long a closing connection may stay open once its last response is out, in ms (at most keepAliveTimeout). */
const closingGrace = 5_000
/**
 * An answer larger than this may still sit unread in the kernel's socket buffers once the server has handed all of it
 * over; a connection closed after one is reset rather than ended.
 */
const kernelShare = 64 * 1024
/** How many connections over the cap may wait for their 503 at once. */
const refusedConnectionsSlack = 64
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
  /** The client has not read the last response yet; nothing more is read until it has. */
  | 'draining'
  /** The last response is written or being written; everything else is ignored. */
  | 'closing'
  /** Handed over to another protocol (WebSocket); the socket is no longer ours to read or time. */
  | 'upgraded'

/** The request bytes held across connections (see Http1Limits.maxBufferedBytes). */
type BufferBudget = { used: number; max: number }

type ChunkState = { step: 'size' } | { step: 'data'; left: number } | { step: 'data-end' } | { step: 'trailers' }

class Connection {
  readonly socket: Socket
  readonly #options: CreateHttp1ServerOptions
  readonly #limits: Http1Limits
  readonly #closingGrace: number
  #phase: Phase = 'idle'
  /** When the phase has lasted too long (Date.now() time). */
  #deadline = 0
  /** Bytes received and not yet consumed. */
  #buffer: Buffer = EMPTY
  /** Where the search for the end of the head resumes. */
  #headScanned = 0
  #head: ParsedHead | undefined
  #body = new BodyBytes()
  /** Bytes of a Content-Length body still to come. */
  #bodyLeft = 0
  #chunk: ChunkState = { step: 'size' }
  /** Bytes of the trailer section so far. */
  #trailerBytes = 0
  /** When the request in progress began (for requestTimeout). */
  #requestStart = 0
  #peerEnded = false
  /** Over the connection cap: the first request is answered 503, then the connection closes. */
  readonly #overCap: boolean
  readonly #budget: BufferBudget
  /** This connection's share of the budget: its buffer and body as last counted. */
  #held = 0
  /** The size of the last answer written, in characters. */
  #lastAnswerBytes = 0
  /** The unsent bytes of the socket at the last check, and when that number last went down. */
  #unsent = 0
  #unsentSince = 0
  /** Stops counting this connection's answers in the output budget. */
  leaveOutputBudget: () => void
  readonly #onData = (chunk: Buffer) => this.#receive(chunk)
  readonly #onEnd = () => this.#onPeerEnd()
  // A reset or write error destroys the socket; 'close' follows. Nothing is left to answer.
  readonly #onError = () => {}

  constructor(socket: Socket, options: CreateHttp1ServerOptions, budget: BufferBudget, overCap = false) {
    this.socket = socket
    this.#options = options
    this.#budget = budget
    this.#limits = options.limits
    this.#overCap = overCap
    this.#closingGrace = Math.min(closingGrace, this.#limits.keepAliveTimeout)
    // Reset, not ended: a FIN would wait behind the answer the client is not reading.
    this.leaveOutputBudget =
      options.outputBudget?.add({
        waiting: () => socket.writableLength,
        excused: () => 0,
        dropped: () => socket.destroyed,
        drop: () => socket.resetAndDestroy(),
      }) ?? (() => {})
    this.#enter('idle')
    socket.on('data', this.#onData)
    socket.on('end', this.#onEnd)
    socket.on('error', this.#onError)
  }

  /** Moves to `phase` and starts the time it may last. */
  #enter(phase: Phase): void {
    const now = Date.now()
    this.#phase = phase
    switch (phase) {
      case 'idle':
        this.#deadline = now + this.#limits.keepAliveTimeout
        return
      case 'draining':
        // Checked at half the write timeout, to see whether the client takes any of what it was sent.
        this.#unsent = this.socket.writableLength
        this.#unsentSince = now
        this.#deadline = now + Math.min(this.#limits.keepAliveTimeout, this.#limits.writeTimeout / 2)
        return
      case 'head':
        this.#requestStart = now
        this.#deadline = now + this.#limits.headersTimeout
        return
      case 'body':
      case 'chunked':
        this.#deadline = this.#requestStart + this.#limits.requestTimeout
        return
      case 'busy':
      case 'upgraded':
        this.#deadline = Number.POSITIVE_INFINITY
        return
      case 'closing':
        this.#unsent = this.socket.writableLength
        this.#unsentSince = now
        this.#deadline = now + Math.min(this.#closingGrace, this.#limits.writeTimeout / 2)
    }
  }

  checkDeadline(now: number): void {
    if (now < this.#deadline) return
    switch (this.#phase) {
      case 'head':
      case 'body':
      case 'chunked':
        this.#refuse(408, new InvalidRequestError('the request took too long to arrive'), this.#head)
        return
      default: {
        // Like node:http, the idle and closing times count from when the last response is out: a client reading a
        // large answer slowly is not cut off. One that reads nothing of it for writeTimeout is.
        const unsent = this.socket.writableLength
        if (unsent > 0 || this.#phase === 'draining') {
          if (unsent !== this.#unsent) {
            this.#unsent = unsent
            this.#unsentSince = now
          } else if (now - this.#unsentSince >= this.#limits.writeTimeout) {
            // A reset: a FIN would wait behind the answer the client is not reading, and the client would never
            // learn that the connection is gone, while the kernel kept the answer for it.
            this.socket.resetAndDestroy()
            return
          }
          const wait = this.#phase === 'closing' ? this.#closingGrace : this.#limits.keepAliveTimeout
          this.#deadline = now + Math.min(wait, this.#limits.writeTimeout / 2)
          return
        }
        // All of the last answer is with the kernel, but not necessarily with the client: the kernel's buffers take
        // megabytes on loopback, so a client that reads none of a large answer leaves the server nothing to wait
        // for. After such an answer, the connection is reset rather than ended, for the same reason as above.
        if (this.#lastAnswerBytes > kernelShare) this.socket.resetAndDestroy()
        else this.socket.destroy()
      }
    }
  }

  /** Gives back this connection's share of the budget (it closed). */
  release(): void {
    this.#budget.used -= this.#held
    this.#held = 0
  }

  /** Counts what this connection holds now; false (and a 503) when that takes the budget over its limit. */
  #account(): boolean {
    const held = this.#buffer.length + this.#body.length
    this.#budget.used += held - this.#held
    this.#held = held
    if (this.#budget.used <= this.#budget.max || held === 0) return true
    this.#refuse(503, new LimitExceededError('the node is holding too many request bytes; send again later'), this.#head)
    this.release()
    return false
  }

  #receive(chunk: Buffer): void {
    if (this.#phase === 'closing') return
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk])
    if (!this.#account()) return
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
          if (this.#buffer.length === 0) return this.#awaitBytes()
          this.#enter('head')
          continue
        case 'head':
          if (!this.#readHead()) return this.#awaitBytes()
          continue
        case 'body':
          if (!this.#readBody()) return this.#awaitBytes()
          return this.#dispatch()
        case 'chunked':
          if (!this.#readChunks()) return this.#awaitBytes()
          return this.#dispatch()
        default:
          return
      }
    }
  }

  /** More bytes are needed; a client that ended its side will send none. */
  #awaitBytes(): void {
    if (this.#peerEnded && this.#phase !== 'closing') this.#close()
  }

  /** Returns whether the phase moved on (to a body, back to idle, or to closing after a refusal). */
  #readHead(): boolean {
    let buffer = this.#buffer
    // RFC 9112 §2.2: empty lines before a request line are ignored (some clients send CRLF after a body).
    let start = 0
    while (start + 1 < buffer.length && buffer[start] === 0x0d && buffer[start + 1] === 0x0a) start += 2
    if (start > 0) {
      buffer = this.#buffer = buffer.subarray(start)
      this.#headScanned = 0
      if (buffer.length === 0) {
        this.#enter('idle')
        return true
      }
    }
    const end = buffer.indexOf(CRLF_CRLF, this.#headScanned)
    if (end === -1) {
      // A head whose lines end in LF alone would never be found; LF LF or LF CRLF (not after a CR) give it away.
      if (hasBareLineEnd(buffer, Math.max(0, this.#headScanned - 2))) {
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
    this.#body.reset()
    if (this.#overCap) {
      this.#refuse(503, new LimitExceededError('too many connections'), head)
      return true
    }
    if (head.upgrade !== undefined && this.#options.upgrade !== undefined) {
      this.#handOver(head.upgrade, this.#options.upgrade)
      return true
    }

    const { maxBodyBytes } = this.#limits
    if (head.contentLength !== undefined && head.contentLength > maxBodyBytes) {
      // Refused before a byte of it is read; the connection closes, so the rest is never parsed as a request.
      this.#refuse(413, bodyTooLarge(maxBodyBytes), head)
      return true
    }
    if (head.chunked) {
      this.#chunk = { step: 'size' }
      this.#trailerBytes = 0
      this.#enter('chunked')
    } else {
      this.#bodyLeft = head.contentLength ?? 0
      this.#enter('body')
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
    this.#body.append(take === buffer.length ? buffer : buffer.subarray(0, take))
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
            this.#malformed('chunk size line too long')
            return false
          }
          if (lineEnd === -1) return false
          const size = parseChunkSize(buffer.toString('latin1', 0, lineEnd))
          if (size === undefined) {
            this.#malformed('invalid chunk size')
            return false
          }
          if (this.#body.length + size > this.#limits.maxBodyBytes) {
            this.#refuse(413, bodyTooLarge(this.#limits.maxBodyBytes), this.#head)
            return false
          }
          this.#buffer = buffer.subarray(lineEnd + 2)
          this.#chunk = size === 0 ? { step: 'trailers' } : { step: 'data', left: size }
          continue
        }
        case 'data': {
          if (buffer.length === 0) return false
          const take = Math.min(chunk.left, buffer.length)
          this.#body.append(buffer.subarray(0, take))
          this.#buffer = buffer.subarray(take)
          this.#chunk = take === chunk.left ? { step: 'data-end' } : { step: 'data', left: chunk.left - take }
          continue
        }
        case 'data-end':
          if (buffer.length < 2) return false
          if (buffer[0] !== 0x0d || buffer[1] !== 0x0a) {
            this.#malformed('chunk data not followed by CRLF')
            return false
          }
          this.#buffer = buffer.subarray(2)
          this.#chunk = { step: 'size' }
          continue
        case 'trailers': {
          // Trailer fields are checked like header fields and counted against the same limit, then dropped. An
          // empty line ends them and the message.
          const lineEnd = buffer.indexOf(CRLF)
          if (this.#trailerBytes + (lineEnd === -1 ? buffer.length : lineEnd + 2) > this.#limits.maxHeaderBytes) {
            const error = new LimitExceededError(`request trailer section exceeds ${this.#limits.maxHeaderBytes} bytes`)
            this.#refuse(431, error, this.#head)
            return false
          }
          if (lineEnd === -1) return false
          if (lineEnd > 0 && typeof parseFieldLine(buffer.toString('latin1', 0, lineEnd)) === 'string') {
            this.#malformed('invalid trailer line')
            return false
          }
          this.#trailerBytes += lineEnd + 2
          this.#buffer = buffer.subarray(lineEnd + 2)
          if (lineEnd === 0) return true
          continue
        }
      }
    }
  }

  /** Gives the socket to the protocol it switches to, with what was read past the head, and lets go of it. */
  #handOver(request: Http1Upgrade, upgrade: NonNullable<CreateHttp1ServerOptions['upgrade']>): void {
    const rest = this.#buffer
    this.#buffer = EMPTY
    this.#head = undefined
    this.#enter('upgraded')
    this.socket.off('data', this.#onData)
    this.socket.off('end', this.#onEnd)
    this.socket.off('error', this.#onError)
    this.leaveOutputBudget()
    upgrade(request, this.socket, rest)
  }

  #malformed(reason: string): void {
    this.#refuse(400, new InvalidRequestError(`malformed HTTP request: ${reason}`), this.#head)
  }

  #dispatch(): void {
    const head = this.#head!
    const body = this.#body.take()
    this.#account()
    this.#enter('busy')
    // The handler promises not to throw or reject; if it does anyway, the client still gets an answer.
    let answer: Promise<Http1Response>
    try {
      answer = Promise.resolve(this.#options.handle({ ...head.fields, body }))
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
    this.#head = undefined
    if (!keepAlive) return this.#close()
    // Read nothing more until the client has read what it was sent: a client that sends and never reads would
    // otherwise pile up answers in memory.
    if (socket.writableNeedDrain) {
      this.#enter('draining')
      socket.pause()
      socket.once('drain', () => {
        if (this.#phase !== 'draining') return
        this.#enter('idle')
        this.#continue()
      })
      return
    }
    this.#enter('idle')
    if (this.#buffer.length > 0) this.#continue()
  }

  /** Writes the response with one socket write (two, corked, when a header value is not ASCII). */
  #write(response: Http1Response, keepAlive: boolean, head: ParsedHead | undefined): void {
    const text = formatHead(response, keepAlive, this.#limits.keepAliveTimeout)
    const body = response.status === 204 || head?.fields.method === 'HEAD' ? undefined : response.body
    if (typeof body !== 'object' && (response.headers === undefined || isAscii(response.headers))) {
      this.socket.write(body === undefined ? text : text + body)
    } else {
      // Header values are latin1 (as they were read); a text body is UTF-8.
      this.socket.cork()
      this.socket.write(text, 'latin1')
      if (body !== undefined) this.socket.write(body)
      this.socket.uncork()
    }
    // Lengths in characters for a text body: the budget needs the size, not an exact count of UTF-8 bytes.
    this.#lastAnswerBytes = text.length + (body?.length ?? 0)
    this.#options.outputBudget?.wrote(this.#lastAnswerBytes)
  }

  /** Reads on: a pipelined request may be waiting, and the socket may have been paused for it. */
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
    this.#enter('closing')
    this.#buffer = EMPTY
    this.#body.reset()
    this.release()
    // Keep reading (and dropping) what the client still sends: a socket closed with unread bytes is reset, and the
    // reset can destroy the response before the client reads it.
    this.socket.resume()
    this.socket.end()
  }
}

/**
 * A body's bytes as they arrive. The first piece is kept as it is (a whole body in one read is never copied); more
 * pieces are copied into one buffer that doubles as it fills, so a body of many tiny chunks costs its size, not an
 * object per chunk.
 */
class BodyBytes {
  #bytes: Buffer = EMPTY
  #length = 0
  /** Whether #bytes is a buffer of our own, rather than the first piece. */
  #owned = false

  get length(): number {
    return this.#length
  }

  append(piece: Buffer): void {
    if (this.#length === 0) {
      this.#bytes = piece
      this.#length = piece.length
      this.#owned = false
      return
    }
    const length = this.#length + piece.length
    if (!this.#owned || length > this.#bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(length, 2 * this.#bytes.length, 1024))
      this.#bytes.copy(grown, 0, 0, this.#length)
      this.#bytes = grown
      this.#owned = true
    }
    piece.copy(this.#bytes, this.#length)
    this.#length = length
  }

  /** The body so far; the collector starts over. */
  take(): Buffer {
    const bytes = this.#length === this.#bytes.length ? this.#bytes : this.#bytes.subarray(0, this.#length)
    this.reset()
    return bytes
  }

  reset(): void {
    this.#bytes = EMPTY
    this.#length = 0
    this.#owned = false
  }
}

/** Whether `buffer` holds, from `from` on, a LF that ends a line without a CR: LF LF, or LF CRLF. */
function hasBareLineEnd(buffer: Buffer, from: number): boolean {
  for (let at = buffer.indexOf(0x0a, from); at !== -1; at = buffer.indexOf(0x0a, at + 1)) {
    const next = buffer[at + 1]
    if (next === 0x0a || (next === 0x0d && buffer[at + 2] === 0x0a)) return true
  }
  return false
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
  /** Set only for a GET asking for `Upgrade: websocket` with `Connection: upgrade`. */
  upgrade?: Http1Upgrade
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

  const fields: Http1Head = { method, target, host: undefined, contentType: undefined, origin: undefined, authorization: undefined }
  let contentLength: number | undefined
  let transferEncoding: string | undefined
  let connection = ''
  let expect: string | undefined
  let hosts = 0
  /** The headers an upgrade to WebSocket needs, kept only in case the request asks for one. */
  let upgradeHeaders: Record<string, string> | undefined
  for (let i = 1; i < lines.length; i++) {
    const field = parseFieldLine(lines[i]!)
    if (typeof field === 'string') return malformed(field)
    const { name, value } = field
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
        fields.host ??= value
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
      case 'upgrade':
      case 'sec-websocket-key':
      case 'sec-websocket-version':
      case 'sec-websocket-protocol':
      case 'sec-websocket-extensions': {
        upgradeHeaders ??= {}
        upgradeHeaders[name.toLowerCase()] ??= value
        break
      }
    }
  }

  const tokens = connection.split(',').map((token) => trimWhitespace(token))
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
    const codings = transferEncoding
      .toLowerCase()
      .split(',')
      .map((coding) => trimWhitespace(coding))
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
  // RFC 6455 §4.2.1: an upgrade is a GET, HTTP/1.1 or later, with `Upgrade: websocket` and `Connection: upgrade`.
  const upgrade = upgradeHeaders?.upgrade
  if (upgrade !== undefined && minor === 1 && method === 'GET' && tokens.includes('upgrade')) {
    const asked = upgrade.split(',').map((token) => trimWhitespace(token).toLowerCase())
    if (asked.includes('websocket') && !head.chunked && (contentLength ?? 0) === 0) {
      head.upgrade = { ...fields, headers: { ...upgradeHeaders, upgrade: 'websocket', connection: 'upgrade' } }
    }
  }
  return head
}

/** A header or trailer line's name and value (trimmed), or what is wrong with it. */
export function parseFieldLine(line: string): { name: string; value: string } | string {
  const colon = line.indexOf(':')
  // A line starting with whitespace is obsolete line folding (RFC 9112 §5.2), refused like node:http does.
  if (colon <= 0 || line.charCodeAt(0) === 0x20 || line.charCodeAt(0) === 0x09) return 'invalid header line'
  const name = line.slice(0, colon)
  if (!TOKEN.test(name)) return 'invalid header name'
  const value = trimWhitespace(line.slice(colon + 1))
  if (CONTROL.test(value)) return `invalid character in the ${name} header`
  return { name, value }
}

function malformed(reason: string, head?: ParsedHead): HeadRefusal {
  return { refusal: 400, reason: `malformed HTTP request: ${reason}`, head }
}

/** A chunk-size line's size (hex, before any `;extension`), or undefined when it is not one. */
export function parseChunkSize(line: string): number | undefined {
  // RFC 9112 §7.1: the size is bare hex digits; whitespace may only come before an extension's `;`.
  const semicolon = line.indexOf(';')
  const hex = semicolon === -1 ? line : trimWhitespace(line.slice(0, semicolon), 'end')
  // 12 hex digits exceed any body limit while staying exact as a number.
  if (!/^[0-9a-fA-F]{1,12}$/.test(hex) || CONTROL.test(line)) return undefined
  return Number.parseInt(hex, 16)
}

/** A space or a tab. */
function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09
}

/** Trims spaces and tabs only: String.prototype.trim would also take latin1's no-break space off a value. */
function trimWhitespace(text: string, sides: 'both' | 'end' = 'both'): string {
  let start = 0
  let end = text.length
  while (sides === 'both' && start < end && isWhitespace(text.charCodeAt(start))) start++
  while (end > start && isWhitespace(text.charCodeAt(end - 1))) end--
  return start === 0 && end === text.length ? text : text.slice(start, end)
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

const REASONS: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  403: 'Forbidden',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
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
  const { status, headers = '', body, contentType = 'application/json' } = response
  let text = `HTTP/1.1 ${status} ${REASONS[status] ?? 'Unknown'}\r\nDate: ${httpDate()}\r\n${headers}`
  // RFC 9110 §8.6: no Content-Length in a 204.
  if (status !== 204) {
    text += body === undefined ? 'Content-Length: 0\r\n' : `Content-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
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
