/**
 * The HTTP/1.1 server's types: the requests it hands over, the responses it writes, its limits, and what a
 * connection needs from the server. Apart from the modules that use them, so that none imports another's.
 */
import type { Socket } from 'node:net'

import type { RpcError } from '../rpc/errors.ts'
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
  /** Sec-Fetch-Site, which browsers send with every request they make and other clients do not. */
  fetchSite: string | undefined
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

/** What a connection needs from its server: the limits, and whom to hand requests, refusals and upgrades to. */
export type ConnectionOptions = {
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
  /**
   * What the node holds for its clients to read, across connections: an HTTP answer counts until the kernel takes it,
   * and the connection furthest behind is reset when the total is passed.
   */
  outputBudget?: OutputBudget | undefined
}

/** The request bytes held across connections (see Http1Limits.maxBufferedBytes). */
export type BufferBudget = { used: number; max: number }
