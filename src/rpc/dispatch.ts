import type { z } from 'zod'

import {
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  LimitExceededError,
  MethodNotFoundError,
  type RpcError,
  type RpcErrorShape,
} from './errors.ts'
import { toRpcError } from './errorMapping.ts'
import { EncodedJson } from '../runtime/encodedJson.ts'
import { createRegistry } from './method.ts'
import { answer } from './upstream.ts'

import type { Method, MethodContext, RequestContext } from './method.ts'

export type RpcId = string | number | null

export type RpcResponse = { jsonrpc: '2.0'; id: RpcId; result: unknown } | { jsonrpc: '2.0'; id: RpcId; error: RpcErrorShape }

/**
 * Answers one parsed JSON-RPC body: an object for a single request, an array for a batch, or `undefined` when the
 * body held only notifications and nothing must be sent.
 */
export type Dispatcher = (body: unknown, request: RequestContext) => Promise<RpcResponse | RpcResponse[] | undefined>

export type CreateDispatcherOptions = {
  methods: readonly Method[]
  /** Builds what handlers receive; called once per body, so a batch shares one context. */
  context: (request: RequestContext) => MethodContext
  maxBatchLength: number
  /** The code a reverted call or estimate is answered with: the chain's (`Chain.revertCode`, `--revert-code`). */
  revertCode: number
  /** Called for anything a handler throws that is not ours (toRpcError). The client only sees -32603. */
  onInternalError?: ((error: unknown, method: string) => void) | undefined
  /**
   * The chain is a fork: a handler may read upstream state not fetched yet, and the upstream answers for what came
   * before the fork block (upstream.ts). A chain is a fork from its start or never.
   */
  fork?: boolean
  /**
   * A replica's sequencer (docs/scaling-out.md): a method it `forwards` (what changes the chain or acts for the
   * wallet) is sent there as it came, and the sequencer's answer is the answer.
   */
  forward?: Forwarding | undefined
}

export type Forwarding = {
  forwards(method: Method): boolean
  /** The sequencer's answer to the request; undefined for a notification. */
  send(request: Record<string, unknown>, caller: RequestContext): Promise<RpcResponse | undefined>
}

export function createDispatcher(options: CreateDispatcherOptions): Dispatcher {
  const methods = createRegistry(options.methods)
  const { maxBatchLength, revertCode, onInternalError = logInternalError } = options

  async function handle(request: unknown, context: MethodContext): Promise<RpcResponse | undefined> {
    if (!isObject(request)) return failure(null, new InvalidRequestError('request must be an object'))

    // JSON cannot carry `undefined`, so an absent `id` member is the only way to get one: a notification.
    const { id } = request
    const isNotification = id === undefined
    if (!isNotification && !isId(id)) {
      return failure(null, new InvalidRequestError('id must be a string, number or null'))
    }
    // Malformed requests are answered even without an id: the sender cannot have meant them as notifications.
    const replyId = isNotification ? null : id
    if (request.jsonrpc !== '2.0') return failure(replyId, new InvalidRequestError('jsonrpc must be "2.0"'))
    const name = request.method
    if (typeof name !== 'string') return failure(replyId, new InvalidRequestError('method must be a string'))
    // geth accepts `params: null` as "no params" (its own client used to send it), so we do too.
    const params = request.params ?? []
    if (typeof params !== 'object') {
      return failure(replyId, new InvalidRequestError('params must be an array or an object'))
    }

    const method = methods.get(name)
    if (method === undefined) return isNotification ? undefined : failure(replyId, new MethodNotFoundError(name))

    try {
      if (options.forward?.forwards(method) === true) {
        // The replica's own door first: a caller this node would refuse is not let through to the sequencer, which
        // may take a request without an Origin for its owner's (a loopback bind). A browser's Origin goes along, and
        // the sequencer decides by it.
        if (method.access === 'owner' || (method.access === 'grant' && context.request.origin === undefined)) {
          context.wallet.requireOwner(context.request)
        }
        return await options.forward.send(request, context.request)
      }
      // Before the params are read, so that a caller refused is refused the same whatever it sends. A `grant` method's
      // handler hands the caller to the wallet, which decides per account (method.ts, Access).
      if (method.access === 'owner') context.wallet.requireOwner(context.request)
      const unfit = unfitParams(params)
      if (unfit !== undefined) return isNotification ? undefined : failure(replyId, unfit)
      const parsed = method.params.safeParse(params)
      if (!parsed.success) {
        return isNotification ? undefined : failure(replyId, toInvalidParamsError(parsed.error.issues[0]!, params))
      }
      const result = await (options.fork === true ? answer(method, params, parsed.data, context) : method.handler(parsed.data, context))
      return isNotification ? undefined : { jsonrpc: '2.0', id: replyId, result: result ?? null }
    } catch (error) {
      const wire = toRpcError(error, { revertCode })
      if (wire === undefined) onInternalError(error, name)
      return isNotification ? undefined : failure(replyId, wire ?? new InternalError())
    }
  }

  return async function dispatch(body, request) {
    const context = options.context(request)
    if (!Array.isArray(body)) return handle(body, context)

    if (body.length === 0) return failure(null, new InvalidRequestError('empty batch'))
    if (body.length > maxBatchLength) {
      return failure(null, new LimitExceededError(`batch of ${body.length} requests exceeds the limit of ${maxBatchLength}`))
    }

    // Sequential on purpose: a batch may send a transaction and then read its effects.
    const responses: RpcResponse[] = []
    for (const request of body) {
      const response = await handle(request, context)
      if (response !== undefined) responses.push(response)
    }
    return responses.length === 0 ? undefined : responses
  }
}

/**
 * A response's JSON text, as JSON.stringify writes it, with a result already encoded (EncodedJson: a trace's, a large
 * eth_call's) copied in as it is rather than parsed and encoded again: then the text is given as UTF-8 bytes.
 */
export function encodeResponse(response: RpcResponse | RpcResponse[]): string | Buffer {
  if (!Array.isArray(response)) return encodeOne(response)
  const parts = response.map(encodeOne)
  if (parts.every((part) => typeof part === 'string')) return `[${parts.join(',')}]`
  const pieces: Buffer[] = [OPEN_BRACKET]
  parts.forEach((part, i) => {
    if (i > 0) pieces.push(COMMA)
    pieces.push(typeof part === 'string' ? Buffer.from(part) : part)
  })
  pieces.push(CLOSE_BRACKET)
  return Buffer.concat(pieces)
}

const OPEN_BRACKET = Buffer.from('[')
const COMMA = Buffer.from(',')
const CLOSE_BRACKET = Buffer.from(']')
const CLOSE_BRACE = Buffer.from('}')

function encodeOne(response: RpcResponse): string | Buffer {
  if (!('result' in response) || !(response.result instanceof EncodedJson)) return JSON.stringify(response)
  const { bytes } = response.result
  const head = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(response.id)},"result":`)
  return Buffer.concat([head, bytes, CLOSE_BRACE], head.length + bytes.byteLength + 1)
}

/**
 * Names the bad argument the way geth does (`invalid argument 0: …`), since clients and users read these messages.
 * Only the first issue is reported, like geth, which stops at the first argument it cannot decode.
 */
export function toInvalidParamsError(issue: z.core.$ZodIssue, params: unknown): InvalidParamsError {
  const [head, ...rest] = issue.path
  if (head === undefined) {
    if (Array.isArray(params) && issue.code === 'too_big' && issue.origin === 'array') {
      return new InvalidParamsError(`too many arguments, want at most ${issue.maximum}`)
    }
    if (Array.isArray(params) && issue.code === 'too_small' && issue.origin === 'array') {
      return new InvalidParamsError(`missing value for required argument ${params.length}`)
    }
    return new InvalidParamsError(`invalid params: ${issue.message}`)
  }
  if (typeof head === 'number') {
    const where = rest.length === 0 ? '' : `${formatPath(rest)}: `
    return new InvalidParamsError(`invalid argument ${head}: ${where}${issue.message}`)
  }
  // Named params (an object), e.g. wallet_watchAsset: there is no argument index to give.
  return new InvalidParamsError(`invalid params: ${formatPath(issue.path)}: ${issue.message}`)
}

/** Params nested deeper than this are refused: no method takes anything close, and deep values overflow the stack. */
export const MAX_PARAMS_DEPTH = 64

/**
 * What no schema should have to see: nesting deeper than MAX_PARAMS_DEPTH, and a `__proto__` key, which JSON.parse
 * makes an own key but which schemas of records and objects silently drop, where any other unknown key is refused.
 * In an object of EIP-5792 capabilities it is left to the wallet, which refuses it as an unsupported capability.
 * Walked without recursion, so that no nesting can overflow the stack here.
 */
function unfitParams(params: object): InvalidParamsError | undefined {
  const pending: { value: object; path: PropertyKey[] }[] = [{ value: params, path: [] }]
  while (pending.length > 0) {
    const { value, path } = pending.pop()!
    if (path.length > MAX_PARAMS_DEPTH) return new InvalidParamsError(`${describe(path)}nested more than ${MAX_PARAMS_DEPTH} levels deep`)
    // Capabilities are the exception: an unknown one is refused by name (EIP-5792's 5700), `__proto__` as any other.
    if (Object.hasOwn(value, '__proto__') && path.at(-1) !== 'capabilities') {
      return new InvalidParamsError(`${describe(path)}unrecognized key: "__proto__"`)
    }
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key]
      if (typeof child === 'object' && child !== null) pending.push({ value: child, path: [...path, Array.isArray(value) ? Number(key) : key] })
    }
  }
  return undefined
}

/** `invalid argument N: path: ` for a place in the params, as toInvalidParamsError names one. */
function describe(path: readonly PropertyKey[]): string {
  const [head, ...rest] = path
  if (typeof head !== 'number') return path.length === 0 ? 'invalid params: ' : `invalid params: ${formatPath(path)}: `
  return `invalid argument ${head}: ${rest.length === 0 ? '' : `${formatPath(rest)}: `}`
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.')
}

function failure(id: RpcId, error: RpcError): RpcResponse {
  return { jsonrpc: '2.0', id, error: error.toJSON() }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isId(value: unknown): value is RpcId {
  return value === null || typeof value === 'string' || typeof value === 'number'
}

function logInternalError(error: unknown, method: string): void {
  console.error(`flashchain: internal error in ${method}:`, error)
}
