/**
 * JSON-RPC over WebSocket on the HTTP port: the HTTP layer hands each `Upgrade: websocket` request's socket here,
 * and `ws` speaks RFC 6455 on it. Every message is a JSON-RPC body, answered as over HTTP; a connection also carries
 * subscription notifications, and a path may serve a stream of its own instead (the flashblocks stream).
 */
import { WebSocket, WebSocketServer } from 'ws'

import { InternalError, ParseError, type RpcError } from '../rpc/errors.ts'
import { createSession } from '../rpc/session.ts'
import { createOutputBudget, type OutputBudget } from './outputBudget.ts'

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
  /**
   * Sends one frame of bytes, as text (UTF-8) or binary; false once the connection is gone or was closed for being
   * too slow. The bytes are not copied: one buffer may go to every reader.
   */
  send(data: Buffer, frame: 'text' | 'binary'): boolean
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
   * Bytes a connection may have waiting to be sent when the next message is sent: beyond, the reader is too slow,
   * and it is closed with 1008. A message that finds the connection within it is sent whole, however large.
   * Default 8 MiB.
   */
  maxOutputBytes?: number | undefined
  /** What every connection of the node holds for its clients together; without it, a budget of its own is made. */
  outputBudget?: OutputBudget | undefined
  /** Subscriptions one connection may hold (-32005 beyond). Default 100. */
  maxSubscriptions?: number | undefined
  /** Subscriptions all connections may hold together (-32005 beyond). Default 1000. */
  maxTotalSubscriptions?: number | undefined
  log?: ((line: string) => void) | undefined
}

export type WebSocketHandler = {
  upgrade(request: Http1Upgrade, socket: Socket, head: Buffer): void
  /** Open WebSocket connections. */
  readonly size: number
  /** Closes every connection (1001, going away) and stops the pings. */
  close(): void
  /** Closes every connection with 1012 (service restart) and `reason`, and goes on accepting new ones. */
  restart(reason: string): void
}

const defaultPingInterval = 30_000
export const defaultMaxOutputBytes = 8 * 1024 * 1024
export const defaultMaxSubscriptions = 100
export const defaultMaxTotalSubscriptions = 1000
/** Requests of one connection being answered at once; beyond, its socket is not read until one is answered. */
const maxInFlight = 64
/**
 * ms a connection closed for being too slow has to read what was already on its way and the close frame; then its
 * socket is destroyed, and what it still held with it.
 */
const closeGrace = 5_000

/** RFC 6455 §7.4.1 close codes. */
const CLOSE_GOING_AWAY = 1001
/** RFC 6455 as registered with IANA: the server restarts, and a client may connect again. */
const CLOSE_SERVICE_RESTART = 1012
const CLOSE_POLICY_VIOLATION = 1008

export function createWebSocketHandler(options: CreateWebSocketHandlerOptions): WebSocketHandler {
  const { dispatch, maxMessageBytes, streams = {} } = options
  const pingInterval = options.pingInterval ?? defaultPingInterval
  const maxOutputBytes = options.maxOutputBytes ?? defaultMaxOutputBytes
  const budget = options.outputBudget ?? createOutputBudget(Number.POSITIVE_INFINITY)
  const subscriptions = { open: 0, max: options.maxTotalSubscriptions ?? defaultMaxTotalSubscriptions }
  const maxSubscriptions = options.maxSubscriptions ?? defaultMaxSubscriptions
  const log = options.log ?? (() => {})
  const bodies = {
    parseError: toErrorBody(new ParseError()),
    internalError: toErrorBody(new InternalError()),
  }
  // No compression: JSON-RPC answers are small, and deflate would cost every message CPU and memory per connection.
  // Pongs are sent here, not by `ws`: one at a time, so that a peer that pings and never reads cannot pile them up.
  const server = new WebSocketServer({
    noServer: true,
    maxPayload: maxMessageBytes,
    perMessageDeflate: false,
    clientTracking: false,
    autoPong: false,
  })
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
   * One connection's output and input. Output: each message is checked before it is sent against what already
   * waits (see maxOutputBytes); a connection over it is closed with 1008 and sends nothing more. Input: the socket is
   * not read while its output is behind (past the socket's high-water mark), while a pong waits to be taken, or
   * while `maxInFlight` requests are being answered, so a peer that sends and does not read stops being read.
   */
  function openConnection(ws: WebSocket, socket: Socket, peer: string) {
    let corked = false
    /** The size of one message sent within the budget that took the connection over it, while it drains. */
    let excused = 0
    let inFlight = 0
    let dropped = false
    /** A pong written and not yet taken by the kernel, and the latest ping that came meanwhile (RFC 6455 §5.5.3). */
    let pongWaiting = false
    let nextPong: Buffer | undefined
    const flush = () => {
      corked = false
      socket.uncork()
    }
    const reads = () => inFlight < maxInFlight && !pongWaiting && !socket.writableNeedDrain
    const gate = () => {
      if (ws.readyState !== WebSocket.OPEN) return
      if (reads()) {
        if (ws.isPaused) ws.resume()
      } else if (!ws.isPaused) ws.pause()
    }
    const drop = (why: string) => {
      // Dropped already, and the node still needs what it holds: no more grace.
      if (dropped) {
        if (socket.destroyed) return
        log(`cut WebSocket ${peer}: it still held ${ws.bufferedAmount} bytes when the node needed the room`)
        return ws.terminate()
      }
      dropped = true
      log(`closed WebSocket ${peer}: ${why}`)
      ws.close(CLOSE_POLICY_VIOLATION, 'too slow: the connection fell too far behind')
      // Read again, for the client's answering close frame, which ends the connection.
      ws.resume()
      setTimeout(() => {
        if (socket.destroyed) return
        log(`cut WebSocket ${peer}: it did not read its close frame within ${closeGrace} ms`)
        ws.terminate()
      }, closeGrace).unref()
    }
    const pong = (data: Buffer) => {
      pongWaiting = true
      ws.pong(data, false, () => {
        pongWaiting = false
        const next = nextPong
        nextPong = undefined
        if (next !== undefined && ws.readyState === WebSocket.OPEN) pong(next)
        else gate()
      })
    }
    const release = budget.add({
      waiting: () => ws.bufferedAmount,
      excused: () => excused,
      dropped: () => dropped,
      drop: () => drop(`the node holds over ${budget.maxTotalBytes} bytes for its clients, and it was the furthest behind`),
    })
    ws.on('ping', (data: Buffer) => {
      if (pongWaiting) nextPong = data
      else pong(data)
      if (pongWaiting) gate()
    })
    // After `ws` has read a chunk: what it made the server write may be reason to stop reading.
    socket.on('data', gate)
    socket.on('drain', gate)
    ws.once('close', release)

    /**
     * What sends to the connection. The frames sent in one turn of the event loop leave in one write: a flashblock's
     * notifications are many small frames to each subscriber (one per log for pendingLogs), and a write each cost
     * more than building them.
     */
    function sender(options: { binary: boolean }): (data: string | Buffer) => boolean {
      return (data) => {
        if (ws.readyState !== WebSocket.OPEN || dropped) return false
        const waiting = ws.bufferedAmount
        if (waiting > maxOutputBytes + excused) {
          drop(`it fell ${waiting} bytes behind (over ${maxOutputBytes})`)
          return false
        }
        const size = typeof data === 'string' ? Buffer.byteLength(data) : data.length
        if (waiting <= maxOutputBytes) excused = waiting + size > maxOutputBytes ? size : 0
        if (!corked) {
          corked = true
          socket.cork()
          process.nextTick(flush)
        }
        ws.send(data, options)
        budget.wrote(size)
        gate()
        return true
      }
    }

    return {
      sender,
      /** A request began: past `maxInFlight` at once, the socket is not read until one is answered. */
      began() {
        inFlight++
        gate()
      },
      ended() {
        inFlight--
        gate()
      },
    }
  }

  function serveJsonRpc(ws: WebSocket, request: Http1Upgrade, connection: ReturnType<typeof openConnection>): void {
    const send = connection.sender({ binary: false })
    const session = createSession(send, { maxSubscriptions, total: subscriptions })
    const context = { origin: request.origin, authorization: request.authorization, session }
    ws.on('message', (data: Buffer) => {
      let body: unknown
      try {
        body = JSON.parse(data.toString('utf8'))
      } catch {
        send(bodies.parseError)
        return
      }
      connection.began()
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
        .finally(() => connection.ended())
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
        const connection = openConnection(ws, socket, peer)

        const target = new URL(request.target, 'http://localhost')
        const stream = streams[target.pathname]
        // JSON-RPC messages are text frames, given as a string or as UTF-8 bytes; a stream says which its frames are.
        if (stream === undefined) return serveJsonRpc(ws, request, connection)
        const frames = { text: connection.sender({ binary: false }), binary: connection.sender({ binary: true }) }
        const stop = stream.open(
          {
            send: (data, frame) => frames[frame](data),
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
    restart(reason) {
      for (const ws of alive.keys()) {
        try {
          ws.close(CLOSE_SERVICE_RESTART, reason)
        } catch {
          // A reason past the 123 bytes a close frame holds: closed without it.
          ws.terminate()
        }
      }
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
