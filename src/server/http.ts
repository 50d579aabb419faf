import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

import { InternalError, InvalidRequestError, LimitExceededError, ParseError, type RpcError } from '../errors.ts'
import type { Dispatcher } from '../rpc/dispatch.ts'

export type CreateHttpServerOptions = {
  host: string
  /** 0 picks a free port; the real one is in the result. */
  port: number
  dispatch: Dispatcher
  /** Default 5 MiB. */
  maxBodyBytes?: number | undefined
}

export type HttpServer = {
  /** `http://HOST:PORT` with the real port. */
  url: string
  port: number
  /** Stops accepting, drops open connections, and resolves once the server is closed. */
  close(): Promise<void>
}

// Not `import … from 'node:http'`: an ES import of a built-in reads every export, and node:http's lazy WebSocket,
// CloseEvent and MessageEvent exports load Node's fetch implementation (undici) with http2, tls and zlib, 13 MB
// resident that a JSON-RPC server never uses (Node 24, measured). getBuiltinModule hands over the exports as they are.
const { createServer } = process.getBuiltinModule('node:http')

const defaultMaxBodyBytes = 5 * 1024 * 1024

// Longer than the idle timeouts of common clients and load balancers (60 s), so they close first and never write
// into a socket we are closing. headersTimeout must exceed it, as Node documents.
const keepAliveTimeout = 65_000
const headersTimeout = 66_000

/** Serves the dispatcher as JSON-RPC over HTTP POST, open to browser dApps through CORS. */
export async function createHttpServer(options: CreateHttpServerOptions): Promise<HttpServer> {
  const { host, dispatch, maxBodyBytes = defaultMaxBodyBytes } = options

  // The transport's own errors never change, so they are serialized once.
  const bodies = {
    methodNotAllowed: toErrorBody(new InvalidRequestError('only POST is supported')),
    unsupportedMediaType: toErrorBody(new InvalidRequestError('Content-Type must be application/json')),
    tooLarge: toErrorBody(new LimitExceededError(`request body exceeds the limit of ${maxBodyBytes} bytes`)),
    parseError: toErrorBody(new ParseError()),
    internalError: toErrorBody(new InternalError()),
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { origin } = req.headers
    res.setHeader('Access-Control-Allow-Origin', origin ?? '*')
    // The header depends on the Origin, so caches must not share it across origins.
    if (origin !== undefined) res.setHeader('Vary', 'Origin')

    if (req.method === 'OPTIONS') {
      res
        .writeHead(204, {
          'Access-Control-Allow-Methods': 'POST, OPTIONS',
          'Access-Control-Allow-Headers': 'Content-Type, Authorization',
          'Access-Control-Max-Age': '86400',
        })
        .end()
      return
    }
    if (req.method !== 'POST') return sendJson(res, 405, bodies.methodNotAllowed, { Allow: 'POST, OPTIONS' })
    if (!isJsonContentType(req.headers['content-type'])) return sendJson(res, 415, bodies.unsupportedMediaType)

    // Refuse an announced oversized body before reading a byte of it.
    if (Number(req.headers['content-length']) > maxBodyBytes) return sendTooLarge(res, bodies.tooLarge)
    const body = await readBody(req, maxBodyBytes)
    if (body === undefined) return sendTooLarge(res, bodies.tooLarge)

    let parsed: unknown
    try {
      parsed = JSON.parse(body.toString('utf8'))
    } catch {
      return sendJson(res, 200, bodies.parseError)
    }

    let json: string
    try {
      const response = await dispatch(parsed, { origin, authorization: req.headers.authorization })
      if (response === undefined) {
        res.writeHead(204).end()
        return
      }
      json = JSON.stringify(response)
    } catch (error) {
      // The dispatcher answers every handler error itself; landing here is a bug (e.g. a bigint in a result).
      console.error('flashchain: failed to answer a JSON-RPC request:', error)
      return sendJson(res, 500, bodies.internalError)
    }
    sendJson(res, 200, json)
  }

  const server = createServer((req, res) => {
    // A client that disconnects mid-body rejects readBody; there is no one left to answer.
    handle(req, res).catch(() => res.destroy())
  })
  server.keepAliveTimeout = keepAliveTimeout
  server.headersTimeout = headersTimeout

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host, port: options.port }, () => {
      server.off('error', reject)
      resolve()
    })
  })

  const { port } = server.address() as AddressInfo
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        // Resolves also when the server was already closed: close() is for shutdown paths, which must not throw.
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** Accepts `application/json` with any parameters (`; charset=utf-8`), in any letter case. */
function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false
  const semicolon = contentType.indexOf(';')
  const mediaType = semicolon === -1 ? contentType : contentType.slice(0, semicolon)
  return mediaType.trim().toLowerCase() === 'application/json'
}

/** Buffers the body, or resolves `undefined` as soon as it grows past `limit` (a chunked body has no length). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let length = 0
    const onData = (chunk: Buffer) => {
      length += chunk.length
      if (length <= limit) {
        chunks.push(chunk)
        return
      }
      // Stop reading: the rest is never wanted, and the connection is closed after the 413.
      req.off('data', onData).off('end', onEnd).pause()
      resolve(undefined)
    }
    const onEnd = () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length))
    req.on('data', onData).on('end', onEnd).on('error', reject)
  })
}

function sendJson(res: ServerResponse, status: number, json: string, headers?: Record<string, string>): void {
  res
    .writeHead(status, {
      ...headers,
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(json),
    })
    .end(json)
}

/**
 * `Connection: close` makes Node end the socket once the 413 is flushed, so the unread rest of the body neither
 * hangs the connection nor gets parsed as the next request.
 */
function sendTooLarge(res: ServerResponse, json: string): void {
  sendJson(res, 413, json, { Connection: 'close' })
}

function toErrorBody(error: RpcError): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: error.toJSON() })
}
