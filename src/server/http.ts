import { InternalError, InvalidRequestError, ParseError, type RpcError } from '../rpc/errors.ts'
import { encodeResponse } from '../rpc/dispatch.ts'
import type { Dispatcher } from '../rpc/dispatch.ts'
import type { RequestContext } from '../rpc/method.ts'
import { createHttp1Server, type Http1Request, type Http1Response } from './http1.ts'
import type { ConsolePage } from './consolePage.ts'
import { createOutputBudget } from './outputBudget.ts'
import { createWebSocketHandler, type CreateWebSocketHandlerOptions } from './websocket.ts'

export type CreateHttpServerOptions = {
  host: string
  /** 0 picks a free port; the real one is in the result. */
  port: number
  dispatch: Dispatcher
  /** Default 5 MiB; also the largest WebSocket message. */
  maxBodyBytes?: number | undefined
  /** Most connections open at once, HTTP and WebSocket together. Default 1000. */
  maxConnections?: number | undefined
  /** Request bytes held at once across connections (see Http1Limits); default 64 MiB or 16 bodies, the larger. */
  maxBufferedBytes?: number | undefined
  /** ms an answer may sit with none of it read before its connection is closed (default 30 s). */
  writeTimeout?: number | undefined
  /**
   * Bytes of answers and notifications waiting to be sent, across every connection: past it, the connection
   * furthest behind is dropped first (default 64 MiB). Each WebSocket connection also has its own budget
   * (`websocket.maxOutputBytes`).
   */
  maxTotalOutputBytes?: number | undefined
  /**
   * Host names (without the port) a request may name besides localhost, 127.0.0.1, [::1] and the bind address;
   * `*` allows any. Any other Host gets HTTP 403, as geth's --http.vhosts does, so that a web page whose name was
   * rebound to 127.0.0.1 (DNS rebinding) cannot act as the node's owner.
   */
  allowedHosts?: readonly string[] | undefined
  /** The console page, served at GET / and /assets/…; without it, GET is refused like any method but POST. */
  consolePage?: ConsolePage | undefined
  /** GET /health, for a load balancer's checks: 200 while the node is ready to serve, 503 otherwise, with `status`. */
  health?: (() => { ready: boolean; status: unknown }) | undefined
  /**
   * GET /snapshot: the chain as stored now, an SQLite file a replica starts from (docs/scaling-out.md). The node's
   * owner's alone: `authorize` throws for anyone else, who gets 403.
   */
  snapshot?: { authorize(caller: RequestContext): void; take(): Promise<Buffer> } | undefined
  /** What the WebSocket side needs beyond the dispatcher: subscriptions, streams, pings, its slow-reader limit. */
  websocket?: Omit<CreateWebSocketHandlerOptions, 'dispatch' | 'maxMessageBytes' | 'outputBudget' | 'log'> | undefined
  log?: ((line: string) => void) | undefined
}

export type HttpServer = {
  /** `http://HOST:PORT` with the real port. */
  url: string
  port: number
  /** Stops accepting, drops open connections, and resolves once the server is closed. */
  close(): Promise<void>
  /**
   * Closes every WebSocket connection with 1012 (service restart), for clients to connect again: their
   * subscriptions were of a chain this server no longer serves (a replica that started again).
   */
  restartWebSockets(reason: string): void
}

const defaultMaxBodyBytes = 5 * 1024 * 1024
const defaultMaxConnections = 1000
export const defaultMaxTotalOutputBytes = 64 * 1024 * 1024

const limits = {
  // node:http's defaults.
  maxHeaderBytes: 16 * 1024,
  headersTimeout: 60_000,
  requestTimeout: 300_000,
  // Longer than the idle timeouts of common clients and load balancers (60 s), so they close first and never write
  // into a socket we are closing.
  keepAliveTimeout: 65_000,
  // A response no byte of which is read for this long is a client that will not read it.
  writeTimeout: 30_000,
}

/** Request bytes held across connections: at least this, and room for 16 bodies of the largest size. */
const minBufferedBytes = 64 * 1024 * 1024

const preflightHeaders =
  'Access-Control-Allow-Methods: POST, OPTIONS\r\n' +
  'Access-Control-Allow-Headers: Content-Type, Authorization\r\n' +
  'Access-Control-Max-Age: 86400\r\n'
const anyOrigin = 'Access-Control-Allow-Origin: *\r\n'

/**
 * Serves the dispatcher as JSON-RPC over HTTP POST, open to browser dApps through CORS, and over WebSocket on the
 * same port.
 */
export async function createHttpServer(options: CreateHttpServerOptions): Promise<HttpServer> {
  const { host, dispatch, maxBodyBytes = defaultMaxBodyBytes } = options
  const outputBudget = createOutputBudget(options.maxTotalOutputBytes ?? defaultMaxTotalOutputBytes)
  const websocket = createWebSocketHandler({ ...options.websocket, dispatch, maxMessageBytes: maxBodyBytes, outputBudget, log: options.log })
  const hostAllowed = createHostCheck(host, options.allowedHosts ?? [])
  const fromOwnPage = createOwnPageCheck(host, options.allowedHosts ?? [])
  const forbiddenHost = toErrorBody(new InvalidRequestError('invalid host specified'))

  // The transport's own errors never change, so they are serialized once.
  const bodies = {
    methodNotAllowed: toErrorBody(new InvalidRequestError('only POST is supported')),
    unsupportedMediaType: toErrorBody(new InvalidRequestError('Content-Type must be application/json')),
    parseError: toErrorBody(new ParseError()),
    internalError: toErrorBody(new InternalError()),
  }

  async function handle(request: Http1Request): Promise<Http1Response> {
    const { origin } = request
    const cors = corsHeaders(origin)
    if (!hostAllowed(request.host)) return { status: 403, headers: cors, body: forbiddenHost }
    if (request.method === 'OPTIONS') return { status: 204, headers: cors + preflightHeaders }
    if (request.method === 'GET' || request.method === 'HEAD') {
      const path = pathOf(request.target)
      if (path === '/health' && options.health !== undefined) {
        const { ready, status } = options.health()
        return { status: ready ? 200 : 503, headers: `${cors}Cache-Control: no-store\r\n`, body: JSON.stringify(status) }
      }
      if (path === '/snapshot' && options.snapshot !== undefined && request.method === 'GET') return snapshot(options.snapshot, request, cors)
      const page = options.consolePage?.serve(path)
      if (page !== undefined) return page
    }
    if (request.method !== 'POST') {
      return { status: 405, headers: `${cors}Allow: POST, OPTIONS\r\n`, body: bodies.methodNotAllowed }
    }
    if (!isJsonContentType(request.contentType)) {
      return { status: 415, headers: cors, body: bodies.unsupportedMediaType }
    }

    let parsed: unknown
    try {
      parsed = JSON.parse(request.body.toString('utf8'))
    } catch {
      return { status: 200, headers: cors, body: bodies.parseError }
    }
    try {
      // The console page acts for the owner; it still needs the token where one is needed.
      const caller = fromOwnPage(origin, request.host) ? undefined : origin
      const response = await dispatch(parsed, { origin: caller, authorization: request.authorization })
      if (response === undefined) return { status: 204, headers: cors }
      return { status: 200, headers: cors, body: encodeResponse(response) }
    } catch (error) {
      // The dispatcher answers every handler error itself; landing here is a bug (e.g. a bigint in a result).
      console.error('flashchain: failed to answer a JSON-RPC request:', error)
      return { status: 500, headers: cors, body: bodies.internalError }
    }
  }

  let server: Awaited<ReturnType<typeof createHttp1Server>>
  try {
    server = await createHttp1Server({
      host,
      port: options.port,
      limits: {
        ...limits,
        maxBodyBytes,
        maxBufferedBytes: options.maxBufferedBytes ?? Math.max(minBufferedBytes, 16 * maxBodyBytes),
        writeTimeout: options.writeTimeout ?? limits.writeTimeout,
      },
      handle,
      refuse: (status, error, head) => ({ status, headers: corsHeaders(head?.origin), body: toErrorBody(error) }),
      upgrade(request, socket, head) {
        if (hostAllowed(request.host)) {
          return websocket.upgrade(fromOwnPage(request.origin, request.host) ? { ...request, origin: undefined } : request, socket, head)
        }
        socket.end(
          `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(forbiddenHost)}\r\nConnection: close\r\n\r\n${forbiddenHost}`,
        )
      },
      maxConnections: options.maxConnections ?? defaultMaxConnections,
      outputBudget,
    })
  } catch (error) {
    websocket.close()
    throw error
  }
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${server.port}`,
    port: server.port,
    restartWebSockets: (reason) => websocket.restart(reason),
    close() {
      websocket.close()
      return server.close()
    },
  }
}

async function snapshot(source: NonNullable<CreateHttpServerOptions['snapshot']>, request: Http1Request, cors: string): Promise<Http1Response> {
  try {
    // A GET a web page makes (an <img>, a no-cors fetch) carries no Origin, which is how the owner's requests look on
    // a loopback bind: a browser's is told by the Sec-Fetch-Site it always sends, and a replica sends none.
    if (request.fetchSite !== undefined) throw new Error('the snapshot is for replicas, not for browsers')
    source.authorize({ origin: request.origin, authorization: request.authorization })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return { status: 403, headers: cors, body: JSON.stringify({ error: message }) }
  }
  const body = await source.take()
  return { status: 200, headers: `${cors}Cache-Control: no-store\r\n`, body, contentType: 'application/vnd.sqlite3' }
}

/** Whether a Host header names this node: see CreateHttpServerOptions.allowedHosts. No Host (HTTP/1.0) passes. */
export function createHostCheck(bindHost: string, allowed: readonly string[]): (host: string | undefined) => boolean {
  if (allowed.includes('*')) return () => true
  const names = new Set(
    ['localhost', '127.0.0.1', '[::1]', bindHost.includes(':') ? `[${bindHost}]` : bindHost, ...allowed].map((name) => name.toLowerCase()),
  )
  return (host) => {
    if (host === undefined) return true
    const lower = host.toLowerCase()
    const name = lower.startsWith('[') ? lower.slice(0, lower.indexOf(']') + 1) : lower.split(':')[0]!
    // Browsers resolve every *.localhost name to the loopback address (RFC 6761).
    return names.has(name) || name.endsWith('.localhost')
  }
}

/**
 * Whether a request comes from the console page this node serves: its Origin is `http://` and the very Host it was
 * sent to, and that Host names this node (not merely any name allowed by `*`, which a rebound name would pass).
 */
export function createOwnPageCheck(bindHost: string, allowed: readonly string[]): (origin: string | undefined, host: string | undefined) => boolean {
  const namesThisNode = createHostCheck(
    bindHost,
    allowed.filter((name) => name !== '*'),
  )
  return (origin, host) =>
    origin !== undefined && host !== undefined && namesThisNode(host) && origin.toLowerCase() === `http://${host.toLowerCase()}`
}

/** The path of a request target, without its query. */
function pathOf(target: string): string {
  const query = target.indexOf('?')
  return query === -1 ? target : target.slice(0, query)
}

/**
 * Any origin may call; the header echoes the caller's, so caches must not share it across origins. The value can
 * hold no CR or LF: the parser refuses control characters in header values.
 */
function corsHeaders(origin: string | undefined): string {
  return origin === undefined ? anyOrigin : `Access-Control-Allow-Origin: ${origin}\r\nVary: Origin\r\n`
}

/** Accepts `application/json` with any parameters (`; charset=utf-8`), in any letter case. */
function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false
  const semicolon = contentType.indexOf(';')
  const mediaType = semicolon === -1 ? contentType : contentType.slice(0, semicolon)
  return mediaType.trim().toLowerCase() === 'application/json'
}

function toErrorBody(error: RpcError): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: error.toJSON() })
}
