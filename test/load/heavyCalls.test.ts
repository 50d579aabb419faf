// No request can hold the thread that answers all the others: simulations, traces and access lists run on the
// execution workers, under --rpc-evm-timeout or a trace's own timeout and size limit, and eth_chainId sent while
// one runs is answered before it ends. No assertion times anything: each compares the order of answers, and a heavy
// request whose answer is to come second takes the worker many times as long as eth_chainId takes the main thread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startChain } from '../e2e/helpers.ts'

import type { Hex } from 'viem'
import type { RpcResponse, TestChain } from '../e2e/helpers.ts'

/** bn254 scalar multiplications (the 0x07 precompile) in a loop until the gas is gone: seconds of work per call. */
const ECMUL_LOOP = `0x60016000526002602052${'7f'}${'ff'.repeat(32)}6040525b604060606060600060075afa50602e56` as Hex
/** MSTORE at 0xffe0 (64 KiB of memory), then JUMPDEST PUSH1 6 JUMP until the gas is gone. */
const MEMORY_LOOP = '0x600061ffe0525b600656' as Hex
/** SLOAD of slots 7000 down to 1, one after the other (PUSH2 7000, then DUP1 SLOAD POP, count down, JUMPI). */
const SLOAD_7000 = '0x611b585b805450600190038060035700' as Hex

const looper = `0x${'10'.repeat(20)}` as Hex
const reader = `0x${'12'.repeat(20)}` as Hex
const memoryLooper = `0x${'14'.repeat(20)}` as Hex
/** RETURN of 2.5 MiB of memory (PUSH3 0x280000 PUSH1 0 RETURN): zeros, as fresh memory holds. */
const BIG_RETURN = '0x6228000060' + '00f3'
const bigReturner = `0x${'15'.repeat(20)}` as Hex
const BIG_RETURN_BYTES = 0x280000
const TIMEOUT_MS = 1_000
const TRACE_MAX_BYTES = 4 * 1024 * 1024

let t: TestChain

beforeAll(async () => {
  t = await startChain({ rpcEvmTimeout: TIMEOUT_MS, workers: 1, traceMaxBytes: TRACE_MAX_BYTES })
  await t.testClient.setCode({ address: looper, bytecode: ECMUL_LOOP })
  await t.testClient.setCode({ address: memoryLooper, bytecode: MEMORY_LOOP })
  await t.testClient.setCode({ address: bigReturner, bytecode: BIG_RETURN as Hex })
})

afterAll(async () => {
  await t?.close()
})

/** Sends `heavy`, then eth_chainId once the heavy request has had time to reach the server; records the order. */
async function whileRunning(heavy: () => Promise<RpcResponse>, on: TestChain = t) {
  const order: string[] = []
  const slow = heavy().then((response) => {
    order.push('heavy')
    return response
  })
  // A head start, not a measure: were eth_chainId to reach the server first, it would still be answered first.
  await new Promise((resolve) => setTimeout(resolve, 50))
  const chainId = await on.rpc('eth_chainId')
  order.push('eth_chainId')
  return { response: await slow, order, chainId }
}

describe('eth_simulateV1 runs on a worker, under the EVM timeout', () => {
  it('100 blocks of 100 looping calls: the timeout ends it, and eth_chainId is answered first', async () => {
    const calls = Array.from({ length: 100 }, () => ({ to: looper }))
    const blockStateCalls = Array.from({ length: 100 }, () => ({ calls }))
    const { response, order, chainId } = await whileRunning(() => t.send('eth_simulateV1', [{ blockStateCalls }, 'latest']))
    expect(chainId).toBe('0x7a69')
    expect(order).toEqual(['eth_chainId', 'heavy'])
    expect(response.error).toEqual({ code: -32000, message: 'execution aborted (timeout = 1s)' })
  })

  it('state overrides go to the worker with the simulation: a looping override is aborted the same way', async () => {
    const elsewhere = `0x${'11'.repeat(20)}` as Hex
    const blockStateCalls = [{ stateOverrides: { [elsewhere]: { code: ECMUL_LOOP } }, calls: [{ to: elsewhere }] }]
    const { response, order } = await whileRunning(() => t.send('eth_simulateV1', [{ blockStateCalls }, 'latest']))
    expect(order).toEqual(['eth_chainId', 'heavy'])
    expect(response.error).toEqual({ code: -32000, message: 'execution aborted (timeout = 1s)' })
  })

  it('the RPC gas cap bounds the whole simulation, as geth: each call gets at most what the calls before left', async () => {
    const capped = await startChain({ rpcGasCap: 1_000_000n, workers: 1 })
    try {
      // Calls that each give themselves 100,000 gas and burn it all, against a cap of 1,000,000: the eleventh finds
      // none left.
      const burner = `0x${'13'.repeat(20)}`
      const calls = Array.from({ length: 20 }, () => ({ to: burner, gas: '0x186a0' }))
      const blockStateCalls = [{ stateOverrides: { [burner]: { code: '0x5b600056' } }, calls: calls.slice(0, 5) }, { calls: calls.slice(5) }]
      const error = await capped.rpcError('eth_simulateV1', [{ blockStateCalls }, 'latest'])
      expect(error).toEqual({ code: -38013, message: 'intrinsic gas too low: gas 0, minimum needed 21000' })
    } finally {
      await capped.close()
    }
  })
})

describe('traces run on a worker, within a size limit', () => {
  // The size limit stops this trace within its first steps, often before eth_chainId is sent, so the order of the
  // answers says nothing here; that a trace running on a worker leaves others answered first is the trace timeout's
  // test in test/e2e/trace.test.ts.
  it('enableMemory on a transaction that loops over 64 KiB of memory: the size limit, not the timeout, stops it with its error, and eth_chainId is answered', async () => {
    const loop = await t.wallet(0).sendTransaction({ to: memoryLooper, gas: 3_000_000n })
    await t.mine()
    const { response, chainId } = await whileRunning(() => t.send('debug_traceTransaction', [loop, { enableMemory: true, timeout: '2s' }]))
    expect(chainId).toBe('0x7a69')
    expect(response.error).toEqual({
      code: -32000,
      message: `trace result exceeds ${TRACE_MAX_BYTES} bytes (--trace-max-bytes); narrow it with "limit", "disableStack": true or "enableMemory": false, or trace one transaction`,
    })
  })
})

describe('eth_createAccessList runs on a worker', () => {
  it('a call reading 7,000 slots: eth_chainId is answered first', async () => {
    // Its own node, with a timeout a loaded machine cannot reach: what is measured is the order, not the speed.
    const patient = await startChain({ rpcEvmTimeout: 60_000, workers: 1 })
    let answers: Awaited<ReturnType<typeof whileRunning>>
    try {
      await patient.testClient.setCode({ address: reader, bytecode: SLOAD_7000 })
      answers = await whileRunning(() => patient.send('eth_createAccessList', [{ to: reader }, 'latest']), patient)
    } finally {
      await patient.close()
    }
    const { response, order } = answers
    expect(order).toEqual(['eth_chainId', 'heavy'])
    expect(response.error).toBeUndefined()
    const { accessList } = response.result as { accessList: { address: Hex; storageKeys: Hex[] }[] }
    expect(accessList).toHaveLength(1)
    expect(accessList[0]!.storageKeys).toHaveLength(7000)
    expect(accessList[0]!.storageKeys[0]).toBe(`0x${'1'.padStart(64, '0')}`)
  })
})

describe('large eth_call answers are written as bytes', () => {
  it('eight concurrent 2.5 MiB answers over HTTP and one over WebSocket arrive whole, and eth_chainId is answered meanwhile', async () => {
    const expected = `0x${'00'.repeat(BIG_RETURN_BYTES)}`
    // Distinct callers, so the answer cache cannot answer seven of them from the first.
    const calls = Array.from({ length: 8 }, (_, i) =>
      t.rpc('eth_call', [{ from: `0x${(i + 1).toString(16).padStart(40, '0')}`, to: bigReturner }, 'latest']),
    )
    const chainId = await t.rpc('eth_chainId')
    expect(chainId).toBe('0x7a69')
    for (const answer of await Promise.all(calls)) expect(answer === expected).toBe(true)

    const ws = new WebSocket(t.url.replace('http', 'ws'))
    await new Promise((resolve, reject) => {
      ws.onopen = resolve
      ws.onerror = reject
    })
    try {
      const message = new Promise<string>((resolve) => {
        ws.onmessage = (event) => resolve(String(event.data))
      })
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'eth_call', params: [{ to: bigReturner }, 'latest'] }))
      const body = JSON.parse(await message) as { id: string; result: string }
      expect(body.id).toBe('big')
      expect(body.result === expected).toBe(true)
    } finally {
      ws.close()
    }
  })
})
