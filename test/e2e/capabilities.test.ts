import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startChain, toHex } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

describe('eth_capabilities (execution-apis)', () => {
  it('names the head and serves every resource from genesis, with no deletion', async () => {
    await t.mine()
    const number = await t.mine()
    const head = await t.rpc<{ hash: Hex }>('eth_getBlockByNumber', ['latest', false])
    const all = { disabled: false, oldestBlock: '0x0' }
    expect(await t.rpc('eth_capabilities')).toEqual({
      head: { number: toHex(number), hash: head.hash },
      state: all,
      tx: all,
      logs: all,
      receipts: all,
      blocks: all,
      stateproofs: all,
    })
  })

  it('error: it takes no parameters', async () => {
    expect((await t.rpcError('eth_capabilities', ['latest'])).code).toBe(-32602)
  })
})
