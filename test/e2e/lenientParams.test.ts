/**
 * Parameters in the forms anvil takes and geth refuses, which clients written against anvil send: quantities with
 * leading zeros (ethers' `toBeHex`) and JSON integers. What anvil refuses stays refused, in geth's words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { JsonRpcProvider, toBeHex } from 'ethers'

import { startChain, toHex } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain
let provider: JsonRpcProvider
const recipient = '0x00000000000000000000000000000000000d0d0d'

beforeAll(async () => {
  t = await startChain()
  provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, batchMaxCount: 1 })
  // Blocks 1 to 8, the recipient funded in block 8 alone.
  for (let i = 0; i < 7; i++) await t.mine()
  await t.wallet(1).sendTransaction({ to: recipient, value: 5n })
  await t.mine()
})

afterAll(async () => {
  provider?.destroy()
  await t?.close()
})

describe('quantities with leading zeros, as ethers.toBeHex writes them', () => {
  it('name blocks by number: 0x08 is block 8, 0x07 the one before it', async () => {
    expect(toBeHex(8)).toBe('0x08')
    const block = await provider.send('eth_getBlockByNumber', [toBeHex(8), false])
    expect(block.number).toBe('0x8')
    expect(await provider.send('eth_getBalance', [recipient, toBeHex(8)])).toBe('0x5')
    expect(await provider.send('eth_getBalance', [recipient, toBeHex(7)])).toBe('0x0')
    expect(await provider.send('eth_getBalance', [recipient, { blockNumber: toBeHex(8) }])).toBe('0x5')
    expect(await provider.send('eth_getBlockTransactionCountByNumber', [toBeHex(8)])).toBe('0x1')
  })

  it("are read as numbers in a call's fields", async () => {
    const call = { from: t.accounts[2]!.address, to: recipient, value: toBeHex(1, 32), gas: toBeHex(30_000, 4) }
    expect(call.value).toBe(`0x${'00'.repeat(31)}01`)
    expect(await provider.send('eth_call', [call, 'latest'])).toBe('0x')
    expect(await provider.send('eth_estimateGas', [call, 'latest'])).toBe(toHex(21_000n))
  })
})

describe('JSON integers', () => {
  it('name a block by number where anvil reads a block number alone (eth_getBlockByNumber and its count)', async () => {
    const block = await t.rpc<{ number: Hex; hash: Hex }>('eth_getBlockByNumber', [8, false])
    expect(block.number).toBe('0x8')
    expect(block.hash).toBe((await t.rpc<{ hash: Hex }>('eth_getBlockByNumber', ['0x8', false])).hash)
    expect(await t.rpc('eth_getBlockTransactionCountByNumber', [8])).toBe('0x1')
    expect(await t.rpc('eth_getBlockByNumber', [1_000, false])).toBeNull()
  })

  it('are quantities: a call value and gas, a fee history count, an index', async () => {
    const call = { from: t.accounts[2]!.address, to: recipient, value: 1, gas: 30_000 }
    expect(await t.rpc('eth_estimateGas', [call])).toBe(toHex(21_000n))
    const history = await t.rpc<{ oldestBlock: Hex; gasUsedRatio: number[] }>('eth_feeHistory', [2, '0x8', []])
    expect(history.oldestBlock).toBe('0x7')
    expect(history.gasUsedRatio).toHaveLength(2)
    expect(await t.rpc('eth_getTransactionByBlockNumberAndIndex', ['0x8', 1])).toBeNull()
  })
})

describe('what anvil refuses stays refused', () => {
  it("error: a JSON integer as a state read's block (anvil's BlockId takes strings), with geth's words for the rest", async () => {
    const blockError =
      'invalid argument 1: invalid block number or tag, want "latest", "pending", "safe", "finalized", "earliest", a hex number or an EIP-1898 object'
    expect(await t.rpcError('eth_getBalance', [recipient, 8])).toEqual({ code: -32602, message: blockError })
    expect(await t.rpcError('eth_getBalance', [recipient, '8'])).toEqual({ code: -32602, message: blockError })
    expect(await t.rpcError('eth_getBlockByNumber', ['8', false])).toEqual({
      code: -32602,
      message: blockError.replace('argument 1', 'argument 0'),
    })
    expect(await t.rpcError('eth_getBlockByNumber', [-1, false])).toEqual({ code: -32602, message: blockError.replace('argument 1', 'argument 0') })
  })

  it('error: a quantity that is "0x", not hex, negative, fractional or past 2^53 - 1 as a JSON number', async () => {
    const to = recipient
    expect(await t.rpcError('eth_estimateGas', [{ to, value: '0x' }])).toEqual({
      code: -32602,
      message: 'invalid argument 0: value: hex string "0x"',
    })
    expect(await t.rpcError('eth_estimateGas', [{ to, value: '0x0g' }])).toEqual({
      code: -32602,
      message: 'invalid argument 0: value: invalid hex string',
    })
    expect(await t.rpcError('eth_estimateGas', [{ to, value: '10' }])).toEqual({
      code: -32602,
      message: 'invalid argument 0: value: hex string without 0x prefix',
    })
    expect(await t.rpcError('eth_estimateGas', [{ to, value: -1 }])).toEqual({
      code: -32602,
      message: 'invalid argument 0: value: invalid quantity, want a non-negative integer',
    })
    expect(await t.rpcError('eth_estimateGas', [{ to, value: 1.5 }])).toEqual({
      code: -32602,
      message: 'invalid argument 0: value: invalid quantity, want a non-negative integer',
    })
    expect(await t.rpcError('eth_estimateGas', [{ to, value: 2 ** 60 }])).toEqual({
      code: -32602,
      message: 'invalid argument 0: value: number past 2^53 - 1, send it as a hex string',
    })
    expect(await t.rpcError('eth_estimateGas', [{ to, value: `0x1${'0'.repeat(64)}` }])).toEqual({
      code: -32602,
      message: 'invalid argument 0: value: hex number > 256 bits',
    })
    // Leading zeros do not count towards the 256 bits.
    expect(await t.rpc('eth_call', [{ to, value: `0x${'0'.repeat(70)}1` }])).toBe('0x')
  })

  it("error: the wallet methods keep EIP-5792's form, a hex quantity without leading zeros", async () => {
    const error = await t.rpcError('wallet_sendCalls', [
      {
        version: '2.0.0',
        from: t.accounts[0]!.address,
        chainId: toHex(t.chain.id),
        atomicRequired: false,
        calls: [{ to: recipient, value: '0x01' }],
      },
    ])
    expect(error).toEqual({ code: -32602, message: 'invalid argument 0: calls.0.value: hex number with leading zero digits' })
  })
})
