/**
 * JSON-RPC over WebSocket on the HTTP port: the HTTP layer hands each `Upgrade: websocket` request's socket here,
 * and `ws` speaks RFC 6455 on it. Every message is a JSON-RPC body, answered as over HTTP; a connection also carries
 * subscription notifications, and a path may serve a stream of its own instead (the flashblocks stream).
 */
import { WebSocket, WebSocketServer } from 'ws'

import { InternalError, ParseError, type RpcError } from '../errors.ts'
import { createSession } from '../rpc/session.ts'

import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import { encodeResponse } from '../rpc/dispatch.ts'
import type { Dispatcher } from '../rpc/dispatch.ts'
import type { Http1Upgrade } from './http1.ts'

/** A stream served at a path: it writes to the socket on its own and reads nothing from it. */
export type WebSocketStream = {
  /** Starts serving `socket`; returns what stops it. `query` is the request target's query string. */
  open(socket: StreamSocket, query: URLSearchParams): () => void
}

/** What a stream may do with its connection. */
export type StreamSocket = {
  /** Sends one frame, as text or binary; false once the connection is gone or was closed for being too slow. */
  send(data: string | Buffer): boolean
  /** Closes with 1008 and this reason, e.g. for a query it does not understand. */
  refuse(reason: string): void
}

export type CreateWebSocketHandlerOptions = {
  dispatch: Dispatcher
  /** A message over this many bytes closes the connection with 1009, as a body over it gets HTTP 413. */
  maxMessageBytes: number
  /** Streams by path (e.g. `/flashblocks`); any other path speaks JSON-RPC. */
  streams?: Record<string, WebSocketStream> | undefined
  /** ms between pings; a peer that has not answered the last one by the next is dropped. Default 30 s. */
  pingInterval?: number | undefined
  /**
   * Bytes a connection may have waiting to be sent: beyond, the reader is too slow, and it is closed with 1008.
   * Default 16 MiB.
   */
  maxBufferedBytes?: number | undefined
  log?: ((line: string) => void) | undefined
}

export type WebSocketHandler = {
  upgrade(request: Http1Upgrade, socket: Socket, head: Buffer): void
  /** Open WebSocket connections. */
  readonly size: number
  /** Closes every connection (1001, going away) and stops the pings. */
  close(): void
}

const defaultPingInterval = 30_000
const defaultMaxBufferedBytes = 16 * 1024 * 1024
/** Requests of one connection being answered at once; beyond, its socket is not read until one is answered. */
const maxInFlight = 64

/** RFC 6455 §7.4.1 close codes. */
const CLOSE_GOING_AWAY = 1001
const CLOSE_POLICY_VIOLATION = 1008

export function createWebSocketHandler(options: CreateWebSocketHandlerOptions): WebSocketHandler {
  const { dispatch, maxMessageBytes, streams = {} } = options
  const pingInterval = options.pingInterval ?? defaultPingInterval
  const maxBufferedBytes = options.maxBufferedBytes ?? defaultMaxBufferedBytes
  const log = options.log ?? (() => {})
  const bodies = {
    parseError: toErrorBody(new ParseError()),
    internalError: toErrorBody(new InternalError()),
  }
  // No compression: JSON-RPC answers are small, and deflate would cost every message CPU and memory per connection.
  const server = new WebSocketServer({ noServer: true, maxPayload: maxMessageBytes, perMessageDeflate: false, clientTracking: false })
  const alive = new Map<WebSocket, boolean>()

  const pings = setInterval(() => {
    for (const [ws, answered] of alive) {
      if (!answered) {
        ws.terminate()
        continue
      }
      alive.set(ws, false)
      ws.ping()
    }
  }, pingInterval).unref()

  /**
   * What sends to one connection: unless the peer is too slow to take more, in which case it is closed with 1008.
   * The frames sent in one turn of the event loop leave in one write: a flashblock's notifications are many small
   * frames to each subscriber (one per log for pendingLogs), and a write each cost more than building them.
   */
  function senderTo(ws: WebSocket, socket: Socket, peer: string, options: { binary: false } | undefined): (data: string | Buffer) => boolean {
    let corked = false
    const flush = () => {
      corked = false
      socket.uncork()
    }
    return (data) => {
      if (ws.readyState !== WebSocket.OPEN) return false
      if (ws.bufferedAmount > maxBufferedBytes) {
        log(`closed WebSocket ${peer}: it fell ${ws.bufferedAmount} bytes behind (over ${maxBufferedBytes})`)
        ws.close(CLOSE_POLICY_VIOLATION, 'too slow: the connection fell too far behind')
        return false
      }
      if (!corked) {
        corked = true
        socket.cork()
        process.nextTick(flush)
      }
      if (options === undefined) ws.send(data)
      else ws.send(data, options)
      return true
    }
  }

  function serveJsonRpc(ws: WebSocket, request: Http1Upgrade, send: (json: string | Buffer) => boolean): void {
    const session = createSession(send)
    const context = { origin: request.origin, authorization: request.authorization, session }
    let inFlight = 0
    ws.on('message', (data: Buffer) => {
      let body: unknown
      try {
        body = JSON.parse(data.toString('utf8'))
      } catch {
        send(bodies.parseError)
        return
      }
      if (++inFlight === maxInFlight) ws.pause()
      dispatch(body, context)
        .then(
          (response) => {
            if (response !== undefined) send(encodeResponse(response))
          },
          (error) => {
            // The dispatcher answers every handler error itself; landing here is a bug.
            log(`failed to answer a JSON-RPC message: ${error instanceof Error ? error.stack : error}`)
            send(bodies.internalError)
          },
        )
        .finally(() => {
          if (inFlight-- === maxInFlight) ws.resume()
        })
    })
    ws.once('close', () => session.close())
  }

  return {
    upgrade(request, socket, head) {
      server.handleUpgrade(toIncomingMessage(request), socket, head, (ws) => {
        const peer = `${socket.remoteAddress}:${socket.remotePort}`
        alive.set(ws, true)
        ws.on('pong', () => alive.set(ws, true))
        ws.on('message', () => alive.set(ws, true))
        ws.on('error', () => {})
        ws.once('close', () => alive.delete(ws))

        const target = new URL(request.target, 'http://localhost')
        const stream = streams[target.pathname]
        // JSON-RPC messages are text frames, given as a string or as UTF-8 bytes; a stream's bytes are binary frames.
        if (stream === undefined) return serveJsonRpc(ws, request, senderTo(ws, socket, peer, { binary: false }))
        const stop = stream.open(
          {
            send: senderTo(ws, socket, peer, undefined),
            refuse: (reason) => ws.close(CLOSE_POLICY_VIOLATION, reason),
          },
          target.searchParams,
        )
        ws.once('close', stop)
      })
    },
    get size() {
      return alive.size
    },
    close() {
      clearInterval(pings)
      for (const ws of alive.keys()) ws.close(CLOSE_GOING_AWAY, 'server shutting down')
    },
  }
}

/** The parts of node:http's IncomingMessage that `ws` reads during a handshake. */
function toIncomingMessage(request: Http1Upgrade): IncomingMessage {
  const headers: Record<string, string> = { ...request.headers }
  if (request.origin !== undefined) headers.origin = request.origin
  return { method: request.method, url: request.target, headers } as unknown as IncomingMessage
}

function toErrorBody(error: RpcError): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: error.toJSON() })
}
