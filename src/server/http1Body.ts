/**
 * A request's body as it arrives (RFC 9112 §6): a Content-Length's count of bytes, or chunks with their sizes,
 * extensions and trailers, which are checked and dropped. Reads what the connection has buffered and gives back the
 * rest, which belongs to the next request.
 */
import { LimitExceededError, type RpcError } from '../rpc/errors.ts'
import { bodyTooLarge, malformedRequest, parseChunkSize, parseFieldLine } from './http1Messages.ts'

const CRLF = Buffer.from('\r\n')
const EMPTY = Buffer.alloc(0)
/** A chunk-size line (hex size and extensions) longer than this is refused. */
const maxChunkLineBytes = 4096

export type BodyLimits = { maxBodyBytes: number; maxHeaderBytes: number }

/** Why a body is refused: the status to answer, and the error it carries. The connection closes after it. */
export type BodyRefusal = { status: number; error: RpcError }

/** Where a chunked body's decoding stands. */
type ChunkStep = { step: 'size' } | { step: 'data'; left: number } | { step: 'data-end' } | { step: 'trailers' }

type Framing = { kind: 'length'; left: number } | { kind: 'chunked'; chunk: ChunkStep; trailerBytes: number }

export class RequestBody {
  readonly #limits: BodyLimits
  readonly #bytes = new BodyBytes()
  #framing: Framing = { kind: 'length', left: 0 }

  constructor(limits: BodyLimits) {
    this.#limits = limits
  }

  /** Bytes of the body so far. */
  get length(): number {
    return this.#bytes.length
  }

  /** Starts a body framed as its head says; any previous one is dropped. */
  start(framing: { chunked: boolean; contentLength: number | undefined }): void {
    this.#bytes.reset()
    this.#framing = framing.chunked
      ? { kind: 'chunked', chunk: { step: 'size' }, trailerBytes: 0 }
      : { kind: 'length', left: framing.contentLength ?? 0 }
  }

  /** Takes body bytes off `input`: what is left of it, and whether the body is complete; or why it is refused. */
  read(input: Buffer): { rest: Buffer; done: boolean } | BodyRefusal {
    const framing = this.#framing
    return framing.kind === 'length' ? this.#readLength(input, framing) : this.#readChunks(input, framing)
  }

  /** The whole body; the reader starts over. */
  take(): Buffer {
    return this.#bytes.take()
  }

  reset(): void {
    this.#bytes.reset()
  }

  #readLength(input: Buffer, framing: { left: number }): { rest: Buffer; done: boolean } {
    if (framing.left === 0 || input.length === 0) return { rest: input, done: framing.left === 0 }
    const take = Math.min(framing.left, input.length)
    this.#bytes.append(take === input.length ? input : input.subarray(0, take))
    framing.left -= take
    return { rest: take === input.length ? EMPTY : input.subarray(take), done: framing.left === 0 }
  }

  #readChunks(input: Buffer, framing: { chunk: ChunkStep; trailerBytes: number }): { rest: Buffer; done: boolean } | BodyRefusal {
    const { maxBodyBytes, maxHeaderBytes } = this.#limits
    let buffer = input
    for (;;) {
      const chunk = framing.chunk
      switch (chunk.step) {
        case 'size': {
          const lineEnd = buffer.indexOf(CRLF)
          if (lineEnd > maxChunkLineBytes || (lineEnd === -1 && buffer.length > maxChunkLineBytes)) {
            return malformed('chunk size line too long')
          }
          if (lineEnd === -1) return { rest: buffer, done: false }
          const size = parseChunkSize(buffer.toString('latin1', 0, lineEnd))
          if (size === undefined) return malformed('invalid chunk size')
          if (this.#bytes.length + size > maxBodyBytes) return { status: 413, error: bodyTooLarge(maxBodyBytes) }
          buffer = buffer.subarray(lineEnd + 2)
          framing.chunk = size === 0 ? { step: 'trailers' } : { step: 'data', left: size }
          continue
        }
        case 'data': {
          if (buffer.length === 0) return { rest: buffer, done: false }
          const take = Math.min(chunk.left, buffer.length)
          this.#bytes.append(buffer.subarray(0, take))
          buffer = buffer.subarray(take)
          framing.chunk = take === chunk.left ? { step: 'data-end' } : { step: 'data', left: chunk.left - take }
          continue
        }
        case 'data-end':
          if (buffer.length < 2) return { rest: buffer, done: false }
          if (buffer[0] !== 0x0d || buffer[1] !== 0x0a) return malformed('chunk data not followed by CRLF')
          buffer = buffer.subarray(2)
          framing.chunk = { step: 'size' }
          continue
        case 'trailers': {
          // Trailer fields are checked like header fields and counted against the same limit, then dropped. An
          // empty line ends them and the message.
          const lineEnd = buffer.indexOf(CRLF)
          if (framing.trailerBytes + (lineEnd === -1 ? buffer.length : lineEnd + 2) > maxHeaderBytes) {
            return { status: 431, error: new LimitExceededError(`request trailer section exceeds ${maxHeaderBytes} bytes`) }
          }
          if (lineEnd === -1) return { rest: buffer, done: false }
          if (lineEnd > 0 && typeof parseFieldLine(buffer.toString('latin1', 0, lineEnd)) === 'string') {
            return malformed('invalid trailer line')
          }
          framing.trailerBytes += lineEnd + 2
          buffer = buffer.subarray(lineEnd + 2)
          if (lineEnd === 0) return { rest: buffer, done: true }
          continue
        }
      }
    }
  }
}

function malformed(reason: string): BodyRefusal {
  return { status: 400, error: malformedRequest(reason) }
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
