/**
 * A raw WebSocket JSON-RPC client for the end-to-end suites, so tests see exactly what the server sends: every
 * message, in order, and the close code.
 */
import { WebSocket } from 'ws'

import type { RpcResponse } from './helpers.ts'

export type Notification = { jsonrpc: '2.0'; method: 'eth_subscription'; params: { subscription: string; result: unknown } }

export type WsClient = {
  ws: WebSocket
  /** Sends a JSON value (or a raw text) as one message. */
  send(body: unknown): void
  /** The next message not yet taken that `match` accepts (any by default); rejects after `timeoutMs`. */
  next<T = unknown>(match?: (message: unknown) => boolean, timeoutMs?: number): Promise<T>
  /** One request; resolves with the whole response. */
  request(method: string, params?: unknown[]): Promise<RpcResponse>
  /** The result of a request; throws when the server answered with an error. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>
  /** Subscribes and answers the subscription id. */
  subscribe(params: unknown[]): Promise<string>
  /** The next notification of a subscription. */
  notification<T = unknown>(subscription: string, timeoutMs?: number): Promise<T>
  /** Resolves with the close code once the server closes the connection. */
  closed: Promise<{ code: number; reason: string }>
  close(): Promise<void>
}

let requestId = 0

export function wsUrl(httpUrl: string, path = ''): string {
  return `${httpUrl.replace(/^http/, 'ws')}${path}`
}

export async function connect(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
  const ws = new WebSocket(url, { headers })
  const inbox: unknown[] = []
  const waiters = new Set<() => void>()
  ws.on('message', (data: Buffer) => {
    inbox.push(JSON.parse(data.toString('utf8')))
    for (const wake of waiters) wake()
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => {
      resolve({ code, reason: reason.toString() })
      for (const wake of waiters) wake()
    }),
  )
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })

  function next<T>(match: (message: unknown) => boolean = () => true, timeoutMs = 20_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const look = () => {
        const at = inbox.findIndex(match)
        if (at !== -1) {
          waiters.delete(look)
          clearTimeout(timer)
          resolve(inbox.splice(at, 1)[0] as T)
          return true
        }
        if (ws.readyState === WebSocket.CLOSED) {
          waiters.delete(look)
          clearTimeout(timer)
          reject(new Error('the connection closed before the message came'))
          return true
        }
        return false
      }
      const timer = setTimeout(() => {
        waiters.delete(look)
        reject(new Error(`no matching message within ${timeoutMs} ms`))
      }, timeoutMs)
      if (!look()) waiters.add(look)
    })
  }

  const send = (body: unknown) => ws.send(typeof body === 'string' ? body : JSON.stringify(body))

  async function request(method: string, params: unknown[] = []): Promise<RpcResponse> {
    const id = ++requestId
    send({ jsonrpc: '2.0', id, method, params })
    return next<RpcResponse>((message) => (message as RpcResponse).id === id)
  }

  async function rpc<T>(method: string, params: unknown[] = []): Promise<T> {
    const response = await request(method, params)
    if (response.error !== undefined) throw new Error(`${method} failed: ${response.error.code} ${response.error.message}`)
    return response.result as T
  }

  return {
    ws,
    send,
    next,
    request,
    rpc,
    subscribe: (params) => rpc<string>('eth_subscribe', params),
    notification: async <T>(subscription: string, timeoutMs?: number) =>
      (
        await next<Notification>(
          (message) => (message as Notification).method === 'eth_subscription' && (message as Notification).params.subscription === subscription,
          timeoutMs,
        )
      ).params.result as T,
    closed,
    async close() {
      if (ws.readyState !== WebSocket.CLOSED) {
        ws.close()
        await closed
      }
    },
  }
}
