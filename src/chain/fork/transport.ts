/**
 * JSON-RPC over HTTP to a fork's upstream (docs/fork.md): the calls made in one turn of the event loop go out as one
 * batch, each attempt has a deadline, and a transport failure, a 429 or a 5xx is tried again after a backoff that
 * doubles. An answer that is not JSON-RPC fails at once: asking again would get the same answer.
 *
 * Requests go through node:http (node:https) on kept-alive connections, not fetch: an upstream read sits in the
 * middle of an EVM run, and on a nearby upstream fetch took twice as long per request (0.24 against 0.11 ms on
 * loopback) and cost the start loading undici.
 */
import { setTimeout as sleep } from 'node:timers/promises'

import { UpstreamError } from '../errors.ts'

/** What --fork-retries and --fork-retry-backoff are when not given. */
export const transportDefaults = { retries: 3, retryBackoffMs: 250 } as const

export type UpstreamTransportOptions = {
  url: string
  /** Further attempts after a transport failure, a timeout, a 429 or a 5xx. */
  retries?: number
  /** The wait before the first retry; each next one waits twice as long. */
  retryBackoffMs?: number
  /** The deadline of one HTTP attempt, its body included, so that a stalled upstream never hangs a read. */
  timeoutMs?: number
  /**
   * ms a call may take in all, its attempts and the waits between them together (a fork gives --rpc-evm-timeout):
   * no read hangs past it, whatever the retries; none by default.
   */
  deadlineMs?: number
  /** Calls in one batch at most: providers cap a batch's size. */
  maxBatchSize?: number
}

export type UpstreamTransport = {
  /** The upstream as errors name it: scheme, host and port (a path or a query may hold an API key). */
  readonly upstream: string
  /**
   * One call, sent with the others of this turn; `what` names the read for an error (`eth_getCode 0x… at block 7`).
   * `alone`: sent at once in a request of its own, which no busy turn delays and whose failure fails nothing else.
   */
  call(method: string, params: unknown[], what: string, options?: { alone?: boolean }): Promise<unknown>
}

type Queued = { method: string; params: unknown[]; what: string; resolve(result: unknown): void; reject(error: Error): void }
type Answer = { id: unknown; result?: unknown; error?: { code: number; message: string } }

export function createUpstreamTransport(options: UpstreamTransportOptions): UpstreamTransport {
  const {
    url,
    retries = transportDefaults.retries,
    retryBackoffMs = transportDefaults.retryBackoffMs,
    timeoutMs = 10_000,
    maxBatchSize = 100,
  } = options
  const target = new URL(url)
  const upstream = target.origin
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  // fetch refuses a URL with credentials: they go as HTTP Basic authentication (RFC 7617), as a browser sends them.
  if (target.username !== '' || target.password !== '') {
    const credentials = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`
    target.username = ''
    target.password = ''
  }
  // Kept-alive sockets, released (unref'd) while idle, so a fork never holds the process open. The module is taken
  // with getBuiltinModule: an ESM import of node:http reads every export, and its lazy WebSocket ones load undici.
  const client = process.getBuiltinModule(target.protocol === 'https:' ? 'node:https' : 'node:http')
  const agent = new client.Agent({ keepAlive: true })
  let queue: Queued[] = []
  let nextId = 1
  // Until the upstream refuses a batch; then every call goes alone.
  let batches = true

  const fail = (what: string, detail: string, cause?: unknown) => new UpstreamError({ upstream, what, detail }, { cause })

  /** One HTTP request, tried again as the options say; its parsed JSON body. */
  async function post(body: unknown, what: string): Promise<unknown> {
    const deadline = options.deadlineMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + options.deadlineMs
    for (let attempt = 1; ; attempt++) {
      let failure: string
      let cause: unknown
      const wait = Math.min(timeoutMs, Math.max(1, Math.ceil(deadline - performance.now())))
      try {
        const { status, text } = await exchange(JSON.stringify(body), wait)
        if (status >= 200 && status < 300) {
          try {
            return JSON.parse(text)
          } catch {
            throw fail(what, `answered something that is not JSON: ${excerpt(text)}`)
          }
        }
        if (status !== 429 && status < 500) throw fail(what, `answered HTTP ${status}`)
        failure = `HTTP ${status}`
      } catch (error) {
        if (error instanceof UpstreamError) throw error
        failure = error instanceof NoAnswer ? `no answer within ${wait} ms` : reason(error)
        cause = error
      }
      const backoff = retryBackoffMs * 2 ** (attempt - 1)
      if (attempt > retries || performance.now() + backoff >= deadline) {
        throw fail(what, `${failure} (${attempt} ${attempt === 1 ? 'attempt' : 'attempts'})`, cause)
      }
      await sleep(backoff)
    }
  }

  /** One POST: the answer's status and body, or a rejection on a transport failure or past `timeoutMs`. */
  function exchange(body: string, timeoutMs: number): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const request = client.request(
        target,
        { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
        (response) => {
          const chunks: Buffer[] = []
          response.on('data', (chunk: Buffer) => chunks.push(chunk))
          response.on('end', () => {
            clearTimeout(timer)
            resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') })
          })
        },
      )
      // The whole exchange has the deadline, the body included; destroying the request fails it with the error.
      const timer = setTimeout(() => request.destroy(new NoAnswer()), timeoutMs)
      request.on('error', (error) => {
        clearTimeout(timer)
        reject(error)
      })
      request.end(body)
    })
  }

  /** The answer to one call, or the error it is. */
  function settle(call: Queued, answer: Answer): void {
    // The JSON-RPC error is the cause, for a reader that tells one refusal from another (upstream.ts).
    if (answer.error !== undefined) call.reject(fail(call.what, `answered ${answer.error.code} ${answer.error.message}`, answer.error))
    else call.resolve(answer.result)
  }

  async function sendOne(call: Queued): Promise<void> {
    const id = nextId++
    try {
      const body = await post({ jsonrpc: '2.0', id, method: call.method, params: call.params }, call.what)
      if (!isAnswer(body) || body.id !== id) throw fail(call.what, `answered something that is not its JSON-RPC answer: ${excerpt(body)}`)
      settle(call, body)
    } catch (error) {
      call.reject(error as Error)
    }
  }

  async function sendBatch(calls: Queued[]): Promise<void> {
    const ids = calls.map(() => nextId++)
    const what = `a batch of ${calls.length} calls (${calls[0]!.what}, …)`
    let body: unknown
    try {
      body = await post(
        calls.map((call, index) => ({ jsonrpc: '2.0', id: ids[index], method: call.method, params: call.params })),
        what,
      )
    } catch (error) {
      // Each call's failure names that call: the reader waiting for it did not ask for a batch.
      for (const call of calls) {
        call.reject(
          error instanceof UpstreamError
            ? new UpstreamError({ upstream, what: call.what, detail: error.detail }, { cause: error.cause })
            : (error as Error),
        )
      }
      return
    }
    // One error for the whole batch (JSON-RPC 2.0 §6's answer to a batch it cannot take): the upstream takes no batches.
    if (isAnswer(body) && body.error !== undefined && body.id === null) {
      batches = false
      await Promise.all(calls.map(sendOne))
      return
    }
    const answers = new Map<unknown, Answer>()
    if (Array.isArray(body) && body.every(isAnswer)) for (const answer of body) answers.set(answer.id, answer)
    else {
      for (const call of calls) call.reject(fail(what, `answered something that is not a JSON-RPC batch answer: ${excerpt(body)}`))
      return
    }
    calls.forEach((call, index) => {
      const answer = answers.get(ids[index])
      if (answer === undefined) call.reject(fail(call.what, 'left the call out of its batch answer'))
      else settle(call, answer)
    })
  }

  function flush(): void {
    const calls = queue
    queue = []
    if (!batches || calls.length === 1) {
      for (const call of calls) void sendOne(call)
      return
    }
    for (let start = 0; start < calls.length; start += maxBatchSize) {
      const slice = calls.slice(start, start + maxBatchSize)
      void (slice.length === 1 ? sendOne(slice[0]!) : sendBatch(slice))
    }
  }

  return {
    upstream,
    call(method, params, what, options) {
      return new Promise((resolve, reject) => {
        if (options?.alone === true) return void sendOne({ method, params, what, resolve, reject })
        // setImmediate runs after this turn's promise jobs, so every miss of the turn joins the batch.
        if (queue.length === 0) setImmediate(flush)
        queue.push({ method, params, what, resolve, reject })
      })
    },
  }
}

function isAnswer(value: unknown): value is Answer {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const answer = value as Record<string, unknown>
  // Exactly one of result and error (JSON-RPC 2.0 §5).
  const failed = 'error' in answer
  if (answer.jsonrpc !== '2.0' || !('id' in answer) || 'result' in answer === failed) return false
  if (!failed) return true
  const error = answer.error as Record<string, unknown> | null
  return typeof error === 'object' && error !== null && typeof error.code === 'number' && typeof error.message === 'string'
}

/** An attempt that got no whole answer within its time. */
class NoAnswer extends Error {}

/** Why a request failed, in the system's words where it gives them (`ECONNREFUSED`). */
function reason(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code
  if (typeof code === 'string') return code
  return error instanceof Error ? error.message : String(error)
}

function excerpt(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return text.length > 100 ? `${text.slice(0, 100)}…` : text
}
