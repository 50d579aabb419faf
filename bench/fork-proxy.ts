// A counting HTTP proxy on 127.0.0.1 in front of the fork benchmark's upstream: every request a forking peer sends
// passes through it, so what the peer fetched is counted the same way for every peer, whatever its own logs say.
import { createServer } from 'node:http'

import { sleep } from './servers.ts'

import type { AddressInfo } from 'node:net'

/** What reached the upstream: HTTP requests, the JSON-RPC calls in them (a batch counts each call), by method. */
export type Counts = { requests: number; calls: number; byMethod: Record<string, number> }

export type CountingProxy = {
  url: string
  /** The counts since the last take, and a fresh start from zero. */
  take(): Counts
  /** Resolves once no request has been in flight for `quietMs`, or after `timeoutMs` (false then). */
  settle(quietMs: number, timeoutMs: number): Promise<boolean>
  close(): Promise<void>
}

const empty = (): Counts => ({ requests: 0, calls: 0, byMethod: {} })

/** The methods of a request body: one for a call, one per element for a batch; `(not JSON-RPC)` otherwise. */
function methods(text: string): string[] {
  try {
    const body = JSON.parse(text) as unknown
    const calls = Array.isArray(body) ? body : [body]
    return calls.map((call) => {
      const method = (call as { method?: unknown } | null)?.method
      return typeof method === 'string' ? method : '(not JSON-RPC)'
    })
  } catch {
    return ['(not JSON-RPC)']
  }
}

/**
 * `latencyMs` holds each answer back that long before it is sent, as a provider's round trip over the internet would
 * (BENCH_FORK_LATENCY_MS): on loopback a request costs under a millisecond, which hides what a request costs.
 */
export async function startProxy(upstream: string, latencyMs = 0): Promise<CountingProxy> {
  let counts = empty()
  let inFlight = 0
  let lastActivity = performance.now()
  const server = createServer((request, response) => {
    inFlight++
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8')
      counts.requests++
      for (const method of methods(text)) {
        counts.calls++
        counts.byMethod[method] = (counts.byMethod[method] ?? 0) + 1
      }
      try {
        const answer = await fetch(upstream, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: text,
          signal: AbortSignal.timeout(30_000),
        })
        const body = await answer.text()
        if (latencyMs > 0) await sleep(latencyMs)
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(body)
      } catch (error) {
        response.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${(error as Error).message}`)
      } finally {
        inFlight--
        lastActivity = performance.now()
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    take() {
      const taken = counts
      counts = empty()
      return taken
    },
    async settle(quietMs, timeoutMs) {
      const deadline = performance.now() + timeoutMs
      while (performance.now() < deadline) {
        if (inFlight === 0 && performance.now() - lastActivity >= quietMs) return true
        await sleep(10)
      }
      return false
    },
    close() {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
