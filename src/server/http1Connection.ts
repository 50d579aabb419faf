/**
 * One HTTP/1.1 connection as a state machine (see docs/http.md): its phases, the time each may last, and the
 * request bytes it holds against the server's budget. http1.ts accepts connections; http1Messages.ts parses and
 * formats what they carry; http1Body.ts reads request bodies.
 */
import type { Socket } from 'node:net'

import { InvalidRequestError, LimitExceededError, type RpcError } from '../rpc/errors.ts'
import { RequestBody } from './http1Body.ts'
import { bodyTooLarge, formatHead, hasBareLineEnd, headTooLarge, isAscii, malformedRequest, parseHead } from './http1Messages.ts'

import type { ParsedHead } from './http1Messages.ts'
import type { BufferBudget, ConnectionOptions, Http1Limits, Http1Response, Http1Upgrade } from './http1Types.ts'

const CRLF_CRLF = Buffer.from('\r\n\r\n')
const EMPTY = Buffer.alloc(0)
const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n'
/** How long a closing connection may stay open once its last response is out, in ms (at most keepAliveTimeout). */
const closingGrace = 5_000
/**
 * An answer larger than this may still sit unread in the kernel's socket buffers once the server has handed all of it
 * over; a connection closed after one is reset rather than ended.
 */
const kernelShare = 64 * 1024

type Phase =
  /** Between requests, nothing buffered. */
  | 'idle'
  /** Part of a head has arrived. */
  | 'head'
  /** The head has arrived; reading its body. */
  | 'body'
  /** The handler is answering; later bytes wait in the buffer. */
  | 'busy'
  /** The client has not read the last response yet; nothing more is read until it has. */
  | 'draining'
  /** The last response is written or being written; everything else is ignored. */
  | 'closing'
  /** Handed over to another protocol (WebSocket); the socket is no longer ours to read or time. */
  | 'upgraded'

/**
 * One client's connection: reads its requests one at a time (RFC 9112), hands each to the handler, writes the answer
 * and reads on, and closes it when a phase lasts too long, a request is refused, or the client is gone.
 */
export class Connection {
  readonly socket: Socket
  readonly #options: ConnectionOptions
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
  readonly #body: RequestBody
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

  constructor(socket: Socket, options: ConnectionOptions, budget: BufferBudget, overCap = false) {
    this.socket = socket
    this.#options = options
    this.#budget = budget
    this.#limits = options.limits
    this.#body = new RequestBody(options.limits)
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
        case 'body': {
          const read = this.#body.read(this.#buffer)
          if ('error' in read) return this.#refuse(read.status, read.error, this.#head)
          this.#buffer = read.rest
          if (!read.done) return this.#awaitBytes()
          return this.#dispatch()
        }
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
    this.#body.start(head)
    this.#enter('body')
    if (head.expectContinue && this.#buffer.length === 0 && (head.chunked || (head.contentLength ?? 0) > 0)) {
      this.socket.write(CONTINUE)
    }
    return true
  }

  /** Gives the socket to the protocol it switches to, with what was read past the head, and lets go of it. */
  #handOver(request: Http1Upgrade, upgrade: NonNullable<ConnectionOptions['upgrade']>): void {
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
    this.#refuse(400, malformedRequest(reason), this.#head)
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
