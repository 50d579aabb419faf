// A lean keep-alive HTTP/1.1 client for JSON-RPC over 127.0.0.1, and a closed-loop load generator on top of it.
// The load generator shares the machine's two cores with the server under test, so it writes pre-formatted
// requests straight to a socket and parses only what it must (status line, Content-Length or chunked body):
// a leaner client leaves more CPU to the server, the same for every peer.
import { connect, type Socket } from 'node:net'

export type Connection = {
  /** POSTs one JSON body and resolves with the response body (any HTTP status). */
  post(body: string): Promise<string>
  close(): void
}

const HEADER_END = Buffer.from('\r\n\r\n')

type Waiter = { resolve: (body: string) => void; reject: (error: Error) => void }

/** One keep-alive connection; one request at a time (no pipelining), reconnecting if the server closed it. */
export function openConnection(port: number, host = '127.0.0.1'): Connection {
  let socket: Socket | undefined
  let ready: Promise<void> | undefined
  let waiter: Waiter | undefined
  let busy = false
  let buffer: Buffer = Buffer.alloc(0)
  const prefix = `POST / HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/json\r\nContent-Length: `

  function fail(error: Error) {
    const pending = waiter
    waiter = undefined
    socket = undefined
    ready = undefined
    buffer = Buffer.alloc(0)
    pending?.reject(error)
  }

  function open(): Promise<void> {
    return new Promise((resolve, reject) => {
      const s = connect({ port, host, noDelay: true })
      s.once('connect', () => {
        s.off('error', reject)
        s.on('error', (error) => {
          if (socket === s) fail(error)
        })
        resolve()
      })
      s.once('error', reject)
      s.on('close', () => {
        if (socket === s) fail(new Error('connection closed by the server'))
      })
      s.on('data', (chunk: Buffer) => {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk])
        parse()
      })
      socket = s
    })
  }

  /** Takes one complete response off the buffer, if there is one. */
  function parse() {
    if (waiter === undefined) return
    const end = buffer.indexOf(HEADER_END)
    if (end < 0) return
    const head = buffer.toString('latin1', 0, end)
    const lower = head.toLowerCase()
    const bodyStart = end + 4
    let body: string
    let consumed: number
    const lengthAt = lower.indexOf('\r\ncontent-length:')
    if (lengthAt >= 0) {
      const lineEnd = lower.indexOf('\r\n', lengthAt + 2)
      const length = Number.parseInt(lower.slice(lengthAt + 17, lineEnd < 0 ? undefined : lineEnd).trim(), 10)
      if (buffer.length < bodyStart + length) return
      body = buffer.toString('utf8', bodyStart, bodyStart + length)
      consumed = bodyStart + length
    } else if (lower.includes('\r\ntransfer-encoding: chunked')) {
      const parts: Buffer[] = []
      let at = bodyStart
      for (;;) {
        const lineEnd = buffer.indexOf('\r\n', at)
        if (lineEnd < 0) return
        const size = Number.parseInt(buffer.toString('latin1', at, lineEnd).split(';')[0]!, 16)
        if (buffer.length < lineEnd + 2 + size + 2) return
        if (size === 0) {
          consumed = lineEnd + 4
          break
        }
        parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size))
        at = lineEnd + 2 + size + 2
      }
      body = Buffer.concat(parts).toString('utf8')
    } else {
      // No length: the body runs to the end of the connection; no JSON-RPC peer here answers that way.
      fail(new Error(`response without Content-Length: ${head.split('\r\n')[0]}`))
      return
    }
    buffer = consumed === buffer.length ? Buffer.alloc(0) : buffer.subarray(consumed)
    const closing = lower.includes('\r\nconnection: close')
    const done = waiter
    waiter = undefined
    if (closing) {
      const s = socket
      socket = undefined
      ready = undefined
      s?.destroy()
    }
    done.resolve(body)
  }

  return {
    async post(body) {
      // Checked synchronously: a second caller must not slip in while the first awaits the connection.
      if (busy) throw new Error('one request at a time per connection')
      busy = true
      try {
        if (socket === undefined || ready === undefined) ready = open()
        await ready
        return await new Promise<string>((resolve, reject) => {
          waiter = { resolve, reject }
          socket!.write(`${prefix}${Buffer.byteLength(body)}\r\n\r\n${body}`)
        })
      } finally {
        busy = false
      }
    },
    close() {
      const s = socket
      socket = undefined
      ready = undefined
      s?.destroy()
    },
  }
}

let nextId = 1

/** A JSON-RPC request body. */
export function rpcBody(method: string, params: unknown[]): string {
  return `{"jsonrpc":"2.0","id":${nextId++},"method":"${method}","params":${JSON.stringify(params)}}`
}

export class RpcError extends Error {
  code: number
  constructor(method: string, code: number, message: string) {
    super(`${method}: ${message} (${code})`)
    this.code = code
  }
}

/** One JSON-RPC call on a connection; throws RpcError on an error answer. */
export async function rpc<T = unknown>(connection: Connection, method: string, params: unknown[] = []): Promise<T> {
  const text = await connection.post(rpcBody(method, params))
  let parsed: { result?: T; error?: { code: number; message: string } }
  try {
    parsed = JSON.parse(text) as typeof parsed
  } catch {
    throw new Error(`${method}: not JSON: ${text.slice(0, 200)}`)
  }
  if (parsed.error !== undefined) throw new RpcError(method, parsed.error.code, parsed.error.message)
  return parsed.result as T
}

export type LoadOptions = {
  port: number
  connections: number
  /** Unmeasured seconds first (the same request stream). */
  warmupSeconds: number
  /** Measured seconds; the run also ends when every worker's `next` returned undefined. */
  seconds: number
  /** The body of worker `worker`'s next request, or undefined when it has nothing more to send. */
  next: (worker: number) => string | undefined
  /** Called at the start and at the end of the measured window (e.g. to read the server's CPU time). */
  onWindowStart?: () => void
  onWindowEnd?: () => void
}

export type LoadResult = {
  /** Requests answered without a JSON-RPC error inside the measured window. */
  ok: number
  /** Requests answered with a JSON-RPC error (or a transport error) inside the measured window. */
  errors: number
  firstError?: string
  /** Length of the measured window, s. */
  elapsed: number
  /** Latencies of the window's answered requests, ms, sorted. */
  latencies: Float64Array
  /** From the first request (warm-up included) until every worker stopped, s. */
  totalElapsed: number
}

/**
 * Closed loop: `connections` workers, each with its own keep-alive connection and one request in flight.
 * Requests that start inside the measured window and end before it closes are counted.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const connections = Array.from({ length: options.connections }, () => openConnection(options.port))
  // Connect everyone before the clock starts.
  await Promise.all(connections.map((connection) => connection.post(rpcBody('eth_chainId', []))))
  const start = performance.now()
  const windowStart = start + options.warmupSeconds * 1000
  const windowEnd = windowStart + options.seconds * 1000
  let inWindow = false
  let stopAt = windowEnd
  let ok = 0
  let errors = 0
  let firstError: string | undefined
  let latencies = new Float64Array(65536)
  let count = 0
  let finished = 0
  let windowClosedAt: number | undefined

  const openWindow = () => {
    if (inWindow) return
    inWindow = true
    options.onWindowStart?.()
  }
  const closeWindow = (at: number) => {
    if (windowClosedAt !== undefined) return
    windowClosedAt = at
    stopAt = at
    options.onWindowEnd?.()
  }
  const windowTimer = setTimeout(openWindow, Math.max(0, windowStart - performance.now()))
  const endTimer = setTimeout(() => closeWindow(performance.now()), Math.max(0, windowEnd - performance.now()))

  async function worker(index: number) {
    const connection = connections[index]!
    for (;;) {
      const t0 = performance.now()
      if (t0 >= stopAt) break
      const body = options.next(index)
      if (body === undefined) break
      let text: string | undefined
      let failure: string | undefined
      try {
        text = await connection.post(body)
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error)
      }
      const t1 = performance.now()
      if (failure !== undefined) {
        // A transport failure (reset, refused, malformed answer): the server is gone or broken, so this worker
        // stops rather than spin on instant failures; the error is counted and reported.
        errors++
        firstError ??= failure
        break
      }
      if (t0 < windowStart || t1 > stopAt) continue
      if (!text!.includes('"error"')) {
        ok++
        if (count === latencies.length) {
          const grown = new Float64Array(latencies.length * 2)
          grown.set(latencies)
          latencies = grown
        }
        latencies[count++] = t1 - t0
      } else {
        errors++
        firstError ??= text!.slice(0, 300)
      }
    }
    finished++
    // The last worker out ends the window early (e.g. every pre-signed transaction was sent).
    if (finished === connections.length) {
      const now = performance.now()
      if (now < windowStart) openWindow()
      closeWindow(now)
    }
  }

  try {
    await Promise.all(connections.map((_, index) => worker(index)))
  } finally {
    clearTimeout(windowTimer)
    clearTimeout(endTimer)
    for (const connection of connections) connection.close()
  }
  const elapsed = ((windowClosedAt ?? performance.now()) - windowStart) / 1000
  const sorted = latencies.slice(0, count).sort()
  return { ok, errors, firstError, elapsed: Math.max(elapsed, 0), latencies: sorted, totalElapsed: (performance.now() - start) / 1000 }
}

/** The p-th percentile (0–100) of sorted values, nearest rank. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!
}
