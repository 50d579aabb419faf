import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startChain } from './helpers.ts'

import type { TestChain } from './helpers.ts'

let t: TestChain

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

describe('base_transactionStatus', () => {
  it('default: Known while pooled and pre-confirmed, Unknown once sealed, as Base answers from its pool', async () => {
    const hash = await t.wallet(1).sendTransaction({ to: t.accounts[2]!.address, value: 1n })
    expect(await t.rpc('base_transactionStatus', [hash])).toEqual({ status: 'Known' })
    await t.preconfirm()
    expect(await t.rpc('eth_getTransactionReceipt', [hash])).not.toBeNull()
    expect(await t.rpc('base_transactionStatus', [hash])).toEqual({ status: 'Known' })
    await t.mine()
    expect(await t.rpc('base_transactionStatus', [hash])).toEqual({ status: 'Unknown' })
  })

  it('a hash never sent, or a transaction dropped from the pool, is Unknown', async () => {
    expect(await t.rpc('base_transactionStatus', [`0x${'12'.repeat(32)}`])).toEqual({ status: 'Unknown' })
    const hash = await t.wallet(3).sendTransaction({ to: t.accounts[2]!.address, value: 1n })
    expect(await t.rpc('base_transactionStatus', [hash])).toEqual({ status: 'Known' })
    await t.rpc('anvil_dropTransaction', [hash])
    expect(await t.rpc('base_transactionStatus', [hash])).toEqual({ status: 'Unknown' })
  })

  it('error: a malformed hash is -32602', async () => {
    expect((await t.rpcError('base_transactionStatus', ['0x1234'])).code).toBe(-32602)
    expect((await t.rpcError('base_transactionStatus', [])).code).toBe(-32602)
  })
})
