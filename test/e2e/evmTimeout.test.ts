// No run holds the node: an eth_call past --rpc-evm-timeout is aborted with geth's error, and every other request is
// answered meanwhile, since the EVM runs on worker threads, and the thread that answers requests tries a call itself
// only while no worker is ready, for 50 ms at most.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startChain, untilOnWorker } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain
/**
 * bn254 scalar multiplications (the 0x07 precompile) in a loop until the gas is gone: the input point (1, 2) and a
 * scalar of all ones at memory 0, then JUMPDEST at 46, STATICCALL(gas, 0x07, 0, 96, 96, 64), POP, JUMP 46. At the
 * 2^24 gas a call may use, some 2,800 of them: seconds of work.
 */
const ECMUL_LOOP = `0x60016000526002602052${'7f'}${'ff'.repeat(32)}6040525b604060606060600060075afa50602e56` as Hex
const looper = `0x${'10'.repeat(20)}` as Hex

beforeAll(async () => {
  t = await startChain({ rpcEvmTimeout: 400, workers: 1 })
  await t.testClient.setCode({ address: looper, bytecode: ECMUL_LOOP })
})

afterAll(async () => {
  await t?.close()
})

describe('--rpc-evm-timeout', () => {
  it("an eth_call past it gets geth's -32000 'execution aborted', while the node answers others", async () => {
    const call = t.send('eth_call', [{ to: looper }, 'latest'])
    let answered = false
    void call.then(() => (answered = true))
    // Answered while the loop runs: before the call's own answer.
    for (let i = 0; i < 5; i++) expect(await t.rpc('eth_chainId')).toBe('0x7a69')
    expect(answered).toBe(false)
    const answer = await call
    expect(answer.error).toEqual({ code: -32000, message: 'execution aborted (timeout = 400ms)' })
    // The next call runs on a fresh worker and answers.
    expect(await t.rpc('eth_call', [{ to: t.accounts[1]!.address }, 'latest'])).toBe('0x')
  })

  it('an eth_estimateGas past it too', async () => {
    const error = await t.rpcError('eth_estimateGas', [{ from: t.accounts[0]!.address, to: looper }, 'latest'])
    expect(error).toEqual({ code: -32000, message: 'execution aborted (timeout = 400ms)' })
  })

  it('an eth_call with state overrides runs on a worker too, and is aborted the same way', async () => {
    const elsewhere = `0x${'11'.repeat(20)}`
    const call = t.send('eth_call', [{ to: elsewhere }, 'latest', { [elsewhere]: { code: ECMUL_LOOP } }])
    expect(await t.rpc('eth_chainId')).toBe('0x7a69')
    expect((await call).error).toEqual({ code: -32000, message: 'execution aborted (timeout = 400ms)' })
  })
})

describe('while the workers load', () => {
  it('the first estimate is answered on the main thread; a heavy call is handed to a worker, which aborts it; later estimates run on a worker', async () => {
    const debug: string[] = []
    const chain = await startChain({ rpcEvmTimeout: 400, workers: 1, debug: (line) => debug.push(line) })
    try {
      const [from, to] = chain.accounts
      expect(await chain.rpc('eth_estimateGas', [{ from: from!.address, to: to!.address }])).toBe('0x5208')
      expect(debug).toEqual(['eth_estimateGas: 21000 after 1 EVM runs on the main thread'])
      // The loop passes the main thread's 50 ms and goes to a worker, whose run is stopped at the timeout.
      await chain.testClient.setCode({ address: looper, bytecode: ECMUL_LOOP })
      const call = chain.send('eth_call', [{ to: looper }, 'latest'])
      expect(await chain.rpc('eth_chainId')).toBe('0x7a69')
      expect((await call).error).toEqual({ code: -32000, message: 'execution aborted (timeout = 400ms)' })
      await untilOnWorker(chain, debug)
      expect(debug.at(-1)).toMatch(/^eth_estimateGas: 21000 after \d+ EVM runs on a worker$/)
    } finally {
      await chain.close()
    }
  })
})
