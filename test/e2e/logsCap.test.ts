// eth_getLogs answers at most 20,000 logs, as reth does by default, and names the range that fits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startChain, toHex } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain
/** Emits 5,000 empty LOG0s per call: PUSH2 5000; loop: LOG0(0, 0), decrement, jump back while non-zero. */
const LOGGER = '0x6113885b60006000a0600190038060035700'
const emitter = `0x${'e7'.repeat(20)}` as Hex
let first: bigint

beforeAll(async () => {
  t = await startChain()
  await t.testClient.setCode({ address: emitter, bytecode: LOGGER })
  first = (await t.blockNumber()) + 1n
  for (let i = 0; i < 5; i++) {
    await t.wallet(0).sendTransaction({ to: emitter, gas: 5_000_000n })
    await t.mine()
  }
})

afterAll(async () => {
  await t?.close()
})

describe('eth_getLogs past 20,000 logs', () => {
  it("is -32602 in reth's words, naming the range whose logs fit", async () => {
    const error = await t.rpcError('eth_getLogs', [{ fromBlock: toHex(first), toBlock: toHex(first + 4n), address: emitter }])
    expect(error.code).toBe(-32602)
    expect(error.message).toBe(`query exceeds max results 20000, retry with the range ${first}-${first + 3n}`)
    const fits = await t.rpc<unknown[]>('eth_getLogs', [{ fromBlock: toHex(first), toBlock: toHex(first + 3n), address: emitter }])
    expect(fits).toHaveLength(20_000)
  })

  it('the node answers others meanwhile, and a filter that matches fewer passes', async () => {
    expect(await t.rpc<unknown[]>('eth_getLogs', [{ fromBlock: toHex(first), toBlock: toHex(first), address: emitter }])).toHaveLength(5_000)
    expect(await t.rpc('eth_chainId')).toBe('0x7a69')
  })
})
