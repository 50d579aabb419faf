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
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'

import { Connection } from './http1Connection.ts'

import type { BufferBudget, ConnectionOptions } from './http1Types.ts'

export type { Http1Head, Http1Limits, Http1Request, Http1Response, Http1Upgrade } from './http1Types.ts'

export type CreateHttp1ServerOptions = ConnectionOptions & {
  host: string
  /** 0 picks a free port; the real one is in the result. */
  port: number
  /** Most connections open at once, upgraded ones included; default unlimited. */
  maxConnections?: number | undefined
}

export type Http1Server = {
  port: number
  /** Connections open now, those refused for being over the cap included. */
  readonly connections: number
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
    get connections() {
      return connections.size
    },
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(sweep)
        // Resolves also when the server was already closed: close() is for shutdown paths, which must not throw.
        server.close(() => resolve())
        for (const connection of connections) connection.socket.destroy()
      }),
  }
}

/** How many connections over the cap may wait for their 503 at once. */
const refusedConnectionsSlack = 64
