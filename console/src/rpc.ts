/**
 * JSON-RPC to the node that serves the page: POST to `/`, same origin. Calls made in the same turn go out as one
 * batch. The node answers its own origin as the owner; on a non-loopback bind it also wants the wallet token, which
 * the user gives once per session (see token.tsx).
 *
 * Each call is typed by the node's own method definitions: the params its schema takes and the result its handler
 * declares. The import is of types only, which the bundler erases: no server code reaches the page.
 */
import { createStore } from './store.ts'

import type { RpcSchema } from '../../src/rpc/methods.ts'

/** A method the node answers, by its wire name. */
export type MethodName = keyof RpcSchema
/** What a method answers, as the node declares it. */
export type ResultOf<M extends MethodName> = RpcSchema[M]['result']
/** The params, which a method whose params are all optional may leave out. */
type ParamsArgument<M extends MethodName> = [] extends RpcSchema[M]['params'] ? [params?: RpcSchema[M]['params']] : [params: RpcSchema[M]['params']]

export class RpcError extends Error {
  readonly code: number
  constructor(code: number, message: string) {
    super(message)
    this.code = code
  }
}

/** EIP-1193's "unauthorized": the node wants the wallet token (or refuses this caller altogether). */
const UNAUTHORIZED = 4100

const TOKEN_KEY = 'flashchain.walletToken'

/** Whether the node refused the page for want of a token, and whether the one given was wrong. */
export const tokenPrompt = createStore<'hidden' | 'needed' | 'rejected'>('hidden')
/** Bumped when a token is given, so that views load again with it. */
export const authEpoch = createStore(0)

const savedToken = (): string | null => sessionStorage.getItem(TOKEN_KEY)

export function saveToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token)
  tokenPrompt.set('hidden')
  authEpoch.set(authEpoch.get() + 1)
}

/** Asked only while the prompt is not up and the user has not dismissed it, so one refusal prompts once. */
let dismissed = false
export function dismissTokenPrompt(): void {
  dismissed = true
  tokenPrompt.set('hidden')
}

function unauthorized(): void {
  if (dismissed || tokenPrompt.get() !== 'hidden') return
  tokenPrompt.set(savedToken() === null ? 'needed' : 'rejected')
}

type Call = { method: string; params: unknown[]; resolve(value: unknown): void; reject(error: Error): void }
type Response = { id: number; result?: unknown; error?: { code: number; message: string } }

let queue: Call[] = []

async function flush(): Promise<void> {
  const calls = queue
  queue = []
  const headers: Record<string, string> = { 'Content-Type': 'application/json' }
  const token = savedToken()
  if (token !== null) headers.Authorization = `Bearer ${token}`
  try {
    const response = await fetch('/', {
      method: 'POST',
      headers,
      body: JSON.stringify(calls.map(({ method, params }, id) => ({ jsonrpc: '2.0', id, method, params }))),
    })
    const body = (await response.json()) as Response[] | Response
    // A refusal of the whole request (403, 413) is one error object, not a batch.
    const answers = Array.isArray(body) ? body : calls.map((_, id) => ({ ...body, id }))
    for (const answer of answers) {
      const call = calls[answer.id]
      if (call === undefined) continue
      if (answer.error === undefined) call.resolve(answer.result)
      else {
        if (answer.error.code === UNAUTHORIZED) unauthorized()
        call.reject(new RpcError(answer.error.code, answer.error.message))
      }
    }
  } catch (error) {
    for (const call of calls) call.reject(error instanceof Error ? error : new Error(String(error)))
  }
}

export function rpc<M extends MethodName>(method: M, ...[params]: ParamsArgument<M>): Promise<ResultOf<M>> {
  return new Promise<ResultOf<M>>((resolve, reject) => {
    if (queue.length === 0) queueMicrotask(flush)
    queue.push({ method, params: (params ?? []) as unknown[], resolve: resolve as (value: unknown) => void, reject })
  })
}
