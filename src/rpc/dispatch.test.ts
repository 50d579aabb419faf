import { describe, expect, test, vi } from 'vitest'
import { z } from 'zod'

import { RpcError } from './errors.ts'
import { NotAuthorizedError } from '../wallet/errors.ts'
import { EncodedJson } from '../runtime/encodedJson.ts'
import { createDispatcher, encodeResponse } from './dispatch.ts'
import { defineMethod, type MethodContext, type RequestContext } from './method.ts'

const request: RequestContext = { origin: undefined, authorization: undefined }

function setup(options: { maxBatchLength?: number } = {}) {
  const log: string[] = []
  const onInternalError = vi.fn()
  const methods = [
    defineMethod({
      name: 'echo',
      access: 'public',
      params: z.tuple([z.string(), z.number().optional()]),
      handler: ([text, times]) => text.repeat(times ?? 1),
    }),
    defineMethod({
      name: 'record',
      access: 'public',
      params: z.tuple([z.string()]),
      handler: async ([entry]) => {
        // Yield first, so a dispatcher that ran batch elements concurrently would reorder the log.
        await new Promise((resolve) => setTimeout(resolve, entry === 'slow' ? 20 : 0))
        log.push(entry)
        return log.length
      },
    }),
    defineMethod({
      name: 'nothing',
      access: 'public',
      params: z.tuple([]),
      handler: () => undefined,
    }),
    defineMethod({
      name: 'sendCalls',
      access: 'public',
      params: z.tuple([z.object({ calls: z.array(z.object({ to: z.string() })) })]),
      handler: ([{ calls }]) => calls.length,
    }),
    defineMethod({
      name: 'watchAsset',
      access: 'public',
      params: z.object({ type: z.literal('ERC20'), options: z.object({ address: z.string() }) }),
      handler: ({ options }) => options.address,
    }),
    defineMethod({
      name: 'rejects',
      access: 'public',
      params: z.tuple([]),
      handler: () => {
        throw new RpcError('execution reverted', { code: 3, data: '0xdeadbeef' })
      },
    }),
    defineMethod({
      name: 'crashes',
      access: 'public',
      params: z.tuple([]),
      handler: () => {
        throw new Error('secret internal detail')
      },
    }),
  ]
  const dispatch = createDispatcher({
    methods,
    context: () => ({}) as MethodContext,
    maxBatchLength: options.maxBatchLength ?? 10,
    revertCode: -32000,
    onInternalError,
  })
  return { dispatch: (body: unknown) => dispatch(body, request), log, onInternalError }
}

describe('single requests', () => {
  test('returns the handler result', async () => {
    const { dispatch } = setup()
    expect(await dispatch({ jsonrpc: '2.0', id: 1, method: 'echo', params: ['ab', 2] })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: 'abab',
    })
  })

  test.each([7, 'abc', null])('echoes the id %j', async (id) => {
    const { dispatch } = setup()
    expect(await dispatch({ jsonrpc: '2.0', id, method: 'echo', params: ['x'] })).toEqual({
      jsonrpc: '2.0',
      id,
      result: 'x',
    })
  })

  test('turns an undefined result into null', async () => {
    const { dispatch } = setup()
    expect(await dispatch({ jsonrpc: '2.0', id: 1, method: 'nothing' })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: null,
    })
  })

  test('treats absent and null params as no params', async () => {
    const { dispatch } = setup()
    expect(await dispatch({ jsonrpc: '2.0', id: 1, method: 'nothing', params: null })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: null,
    })
  })

  test('runs a notification but answers nothing', async () => {
    const { dispatch, log } = setup()
    expect(await dispatch({ jsonrpc: '2.0', method: 'record', params: ['a'] })).toBeUndefined()
    expect(log).toEqual(['a'])
  })

  test('answers nothing to a failing notification', async () => {
    const { dispatch, onInternalError } = setup()
    expect(await dispatch({ jsonrpc: '2.0', method: 'missing' })).toBeUndefined()
    expect(await dispatch({ jsonrpc: '2.0', method: 'echo', params: [1] })).toBeUndefined()
    expect(await dispatch({ jsonrpc: '2.0', method: 'crashes' })).toBeUndefined()
    expect(onInternalError).toHaveBeenCalledTimes(1)
  })
})

describe('invalid requests', () => {
  test.each([
    ['a non-object body', 'hello', null, 'Invalid request: request must be an object'],
    ['a null body', null, null, 'Invalid request: request must be an object'],
    ['a wrong jsonrpc version', { jsonrpc: '1.0', id: 4, method: 'echo' }, 4, 'Invalid request: jsonrpc must be "2.0"'],
    ['a missing jsonrpc', { id: 4, method: 'echo' }, 4, 'Invalid request: jsonrpc must be "2.0"'],
    ['a method that is not a string', { jsonrpc: '2.0', id: 5, method: 42 }, 5, 'Invalid request: method must be a string'],
    [
      'an id that is not a string, number or null',
      { jsonrpc: '2.0', id: { nested: true }, method: 'echo' },
      null,
      'Invalid request: id must be a string, number or null',
    ],
    [
      'params that are neither array nor object',
      { jsonrpc: '2.0', id: 6, method: 'echo', params: 'x' },
      6,
      'Invalid request: params must be an array or an object',
    ],
    ['an invalid request without id (not a notification)', { jsonrpc: '1.0', method: 'echo' }, null, 'Invalid request: jsonrpc must be "2.0"'],
  ])('rejects %s with -32600', async (_, body, id, message) => {
    const { dispatch } = setup()
    expect(await dispatch(body)).toEqual({ jsonrpc: '2.0', id, error: { code: -32600, message } })
  })

  test('rejects an unknown method with -32601', async () => {
    const { dispatch } = setup()
    expect(await dispatch({ jsonrpc: '2.0', id: 1, method: 'eth_nope' })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32601, message: 'the method eth_nope does not exist/is not available' },
    })
  })

  test('does not resolve Object.prototype members as methods', async () => {
    const { dispatch } = setup()
    expect(await dispatch({ jsonrpc: '2.0', id: 1, method: 'constructor' })).toMatchObject({
      error: { code: -32601 },
    })
  })
})

describe('invalid params', () => {
  async function paramsError(body: Record<string, unknown>) {
    const { dispatch } = setup()
    return dispatch({ jsonrpc: '2.0', id: 1, ...body })
  }

  test('names the argument index', async () => {
    expect(await paramsError({ method: 'echo', params: ['a', 'b'] })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'invalid argument 1: Invalid input: expected number, received string' },
    })
  })

  test('names the nested path inside an argument', async () => {
    expect(await paramsError({ method: 'sendCalls', params: [{ calls: [{ to: 'a' }, { to: 1 }] }] })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message: 'invalid argument 0: calls.1.to: Invalid input: expected string, received number',
      },
    })
  })

  test('names the path of named (object) params', async () => {
    expect(await paramsError({ method: 'watchAsset', params: { type: 'ERC20', options: {} } })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message: 'invalid params: options.address: Invalid input: expected string, received undefined',
      },
    })
  })

  test('rejects too many arguments', async () => {
    expect(await paramsError({ method: 'echo', params: ['a', 1, 2] })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'too many arguments, want at most 2' },
    })
  })

  test('rejects a missing required argument', async () => {
    expect(await paramsError({ method: 'echo', params: [] })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'missing value for required argument 0' },
    })
  })

  test('rejects named params for a positional method', async () => {
    expect(await paramsError({ method: 'echo', params: { text: 'a' } })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'invalid params: Invalid input: expected tuple, received object' },
    })
  })
})

describe('handler errors', () => {
  test('passes an RpcError through with its code and data', async () => {
    const { dispatch, onInternalError } = setup()
    expect(await dispatch({ jsonrpc: '2.0', id: 1, method: 'rejects' })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: 3, message: 'execution reverted', data: '0xdeadbeef' },
    })
    expect(onInternalError).not.toHaveBeenCalled()
  })

  test('hides any other error behind -32603 and reports it', async () => {
    const { dispatch, onInternalError } = setup()
    const response = await dispatch({ jsonrpc: '2.0', id: 1, method: 'crashes' })
    expect(response).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } })
    expect(JSON.stringify(response)).not.toContain('secret')
    expect(onInternalError).toHaveBeenCalledOnce()
    expect(onInternalError).toHaveBeenCalledWith(expect.objectContaining({ message: 'secret internal detail' }), 'crashes')
  })
})

describe('batches', () => {
  test('answers in order and runs sequentially', async () => {
    const { dispatch, log } = setup()
    expect(
      await dispatch([
        { jsonrpc: '2.0', id: 1, method: 'record', params: ['slow'] },
        { jsonrpc: '2.0', id: 2, method: 'record', params: ['fast'] },
        { jsonrpc: '2.0', id: 3, method: 'echo', params: ['x'] },
      ]),
    ).toEqual([
      { jsonrpc: '2.0', id: 1, result: 1 },
      { jsonrpc: '2.0', id: 2, result: 2 },
      { jsonrpc: '2.0', id: 3, result: 'x' },
    ])
    expect(log).toEqual(['slow', 'fast'])
  })

  test('leaves notifications out of the answer', async () => {
    const { dispatch, log } = setup()
    expect(
      await dispatch([
        { jsonrpc: '2.0', method: 'record', params: ['a'] },
        { jsonrpc: '2.0', id: 'b', method: 'record', params: ['b'] },
        { jsonrpc: '2.0', method: 'missing' },
      ]),
    ).toEqual([{ jsonrpc: '2.0', id: 'b', result: 2 }])
    expect(log).toEqual(['a', 'b'])
  })

  test('answers nothing when every element is a notification', async () => {
    const { dispatch, log } = setup()
    expect(
      await dispatch([
        { jsonrpc: '2.0', method: 'record', params: ['a'] },
        { jsonrpc: '2.0', method: 'record', params: ['b'] },
      ]),
    ).toBeUndefined()
    expect(log).toEqual(['a', 'b'])
  })

  test('answers an empty batch with a single -32600', async () => {
    const { dispatch } = setup()
    expect(await dispatch([])).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid request: empty batch' },
    })
  })

  test('answers a batch over the limit with a single -32005 and runs nothing', async () => {
    const { dispatch, log } = setup({ maxBatchLength: 2 })
    const call = { jsonrpc: '2.0', id: 1, method: 'record', params: ['a'] }
    expect(await dispatch([call, call, call])).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32005, message: 'batch of 3 requests exceeds the limit of 2' },
    })
    expect(log).toEqual([])
  })

  test('accepts a batch exactly at the limit', async () => {
    const { dispatch } = setup({ maxBatchLength: 2 })
    const call = { jsonrpc: '2.0', id: 1, method: 'echo', params: ['a'] }
    expect(await dispatch([call, call])).toHaveLength(2)
  })

  test('answers each non-object element with -32600 and id null', async () => {
    const { dispatch } = setup()
    expect(await dispatch([1, { jsonrpc: '2.0', id: 2, method: 'echo', params: ['x'] }, [3]])).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request: request must be an object' } },
      { jsonrpc: '2.0', id: 2, result: 'x' },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request: request must be an object' } },
    ])
  })
})

test('builds the method context once per body from the request', async () => {
  const context = vi.fn((request: RequestContext) => ({ request }) as MethodContext)
  const dispatch = createDispatcher({
    methods: [defineMethod({ name: 'origin', access: 'public', params: z.tuple([]), handler: (_, { request }) => request.origin })],
    context,
    maxBatchLength: 10,
    revertCode: -32000,
  })
  const call = { jsonrpc: '2.0', id: 1, method: 'origin' }
  expect(await dispatch([call, call], { origin: 'http://localhost:3000', authorization: undefined })).toEqual([
    { jsonrpc: '2.0', id: 1, result: 'http://localhost:3000' },
    { jsonrpc: '2.0', id: 1, result: 'http://localhost:3000' },
  ])
  expect(context).toHaveBeenCalledOnce()
})

describe('encodeResponse', () => {
  const text = (encoded: string | Buffer) => (typeof encoded === 'string' ? encoded : encoded.toString('utf8'))

  test("default: a response of plain values is JSON.stringify's text", () => {
    const response = { jsonrpc: '2.0' as const, id: 'a"b', result: { value: ['0x1', null] } }
    expect(encodeResponse(response)).toBe(JSON.stringify(response))
  })

  test('an encoded result is copied in as it is, and reads as JSON.stringify of its value', () => {
    const bytes = new Uint8Array(100_000).map((_, i) => i * 7)
    const response = { jsonrpc: '2.0' as const, id: 7, result: EncodedJson.hex(bytes) }
    const encoded = encodeResponse(response)
    expect(Buffer.isBuffer(encoded)).toBe(true)
    expect(text(encoded)).toBe(JSON.stringify({ jsonrpc: '2.0', id: 7, result: `0x${Buffer.from(bytes).toString('hex')}` }))
  })

  test('a batch mixing encoded and plain results', () => {
    const batch = [
      { jsonrpc: '2.0' as const, id: 1, result: EncodedJson.of('[{"a":1}]') },
      { jsonrpc: '2.0' as const, id: 2, error: { code: -32000, message: 'no' } },
      { jsonrpc: '2.0' as const, id: null, result: EncodedJson.hex(new Uint8Array([0, 255])) },
    ]
    expect(JSON.parse(text(encodeResponse(batch)))).toEqual([
      { jsonrpc: '2.0', id: 1, result: [{ a: 1 }] },
      { jsonrpc: '2.0', id: 2, error: { code: -32000, message: 'no' } },
      { jsonrpc: '2.0', id: null, result: '0x00ff' },
    ])
    expect(JSON.stringify(batch)).toBe(text(encodeResponse(batch)))
  })
})

describe("a replica's forwarding", () => {
  const methods = [
    defineMethod({ name: 'ownerOnly', access: 'owner', params: z.tuple([]), handler: () => 'here' }),
    defineMethod({ name: 'granted', access: 'grant', params: z.tuple([]), handler: () => 'here' }),
    defineMethod({ name: 'read', access: 'public', params: z.tuple([]), handler: () => 'here' }),
  ]

  /** A replica whose owner is a caller with the token `owner`; what it sent to its sequencer. */
  function replica() {
    const sent: { request: Record<string, unknown>; caller: RequestContext }[] = []
    const wallet = {
      requireOwner(caller: RequestContext) {
        if (caller.origin !== undefined || caller.authorization !== 'Bearer owner')
          throw new NotAuthorizedError('admin methods are for the owner only')
      },
    }
    const dispatch = createDispatcher({
      methods,
      context: (caller) => ({ wallet, request: caller }) as unknown as MethodContext,
      maxBatchLength: 10,
      revertCode: -32000,
      forward: {
        forwards: (method) => method.access !== 'public',
        async send(request, caller) {
          sent.push({ request, caller })
          return { jsonrpc: '2.0', id: request.id as number, result: 'from the sequencer' }
        },
      },
    })
    return { dispatch, sent }
  }

  test('sends what it forwards as it came, with the caller, and answers with the sequencer’s answer', async () => {
    const { dispatch, sent } = replica()
    const caller = { origin: undefined, authorization: 'Bearer owner' }
    expect(await dispatch({ jsonrpc: '2.0', id: 4, method: 'ownerOnly', params: [] }, caller)).toEqual({
      jsonrpc: '2.0',
      id: 4,
      result: 'from the sequencer',
    })
    expect(sent).toEqual([{ request: { jsonrpc: '2.0', id: 4, method: 'ownerOnly', params: [] }, caller }])
    expect(await dispatch({ jsonrpc: '2.0', id: 5, method: 'read', params: [] }, caller)).toEqual({ jsonrpc: '2.0', id: 5, result: 'here' })
  })

  test('refuses at its own door a caller it would refuse itself: the sequencer never sees it', async () => {
    const { dispatch, sent } = replica()
    const stranger = { origin: undefined, authorization: undefined }
    for (const method of ['ownerOnly', 'granted']) {
      const answer = (await dispatch({ jsonrpc: '2.0', id: 1, method, params: [] }, stranger)) as { error: { code: number } }
      expect(answer.error.code).toBe(4100)
    }
    expect(sent).toEqual([])
  })

  test('lets a browser’s grant request through with its Origin, for the sequencer to decide by it', async () => {
    const { dispatch, sent } = replica()
    const page = { origin: 'https://dapp.example', authorization: undefined }
    expect(await dispatch({ jsonrpc: '2.0', id: 2, method: 'granted', params: [] }, page)).toMatchObject({ result: 'from the sequencer' })
    expect(sent.map((entry) => entry.caller)).toEqual([page])
    // An owner method from a page is refused here, as the sequencer would.
    expect(await dispatch({ jsonrpc: '2.0', id: 3, method: 'ownerOnly', params: [] }, page)).toMatchObject({ error: { code: 4100 } })
    expect(sent).toHaveLength(1)
  })
})
