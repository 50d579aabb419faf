/**
 * HTTP/1.1 messages as the server reads and writes them (RFC 9112): the parts of a request's head it keeps, the
 * response it writes, and the parsing and formatting of both. No sockets here; http1Connection.ts frames them.
 */
import { InvalidRequestError, LimitExceededError } from '../rpc/errors.ts'

import type { Http1Head, Http1Response, Http1Upgrade } from './http1Types.ts'

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

  const fields: Http1Head = {
    method,
    target,
    host: undefined,
    contentType: undefined,
    origin: undefined,
    authorization: undefined,
    fetchSite: undefined,
  }
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
      case 'sec-fetch-site':
        fields.fetchSite ??= value
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

/** Whether `buffer` holds, from `from` on, a LF that ends a line without a CR: LF LF, or LF CRLF. */
export function hasBareLineEnd(buffer: Buffer, from: number): boolean {
  for (let at = buffer.indexOf(0x0a, from); at !== -1; at = buffer.indexOf(0x0a, at + 1)) {
    const next = buffer[at + 1]
    if (next === 0x0a || (next === 0x0d && buffer[at + 2] === 0x0a)) return true
  }
  return false
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

export function isAscii(text: string): boolean {
  return !/[^\x00-\x7f]/.test(text)
}

// ---------------------------------------------------------------------------------------------------------------
// Refusals

/** A framing error: 400, and the connection closes, as a request smuggled behind it could not be told apart. */
export function malformedRequest(reason: string): InvalidRequestError {
  return new InvalidRequestError(`malformed HTTP request: ${reason}`)
}

export function headTooLarge(maxHeaderBytes: number): LimitExceededError {
  return new LimitExceededError(`request header section exceeds ${maxHeaderBytes} bytes`)
}

export function bodyTooLarge(maxBodyBytes: number): LimitExceededError {
  return new LimitExceededError(`request body exceeds the limit of ${maxBodyBytes} bytes`)
}
