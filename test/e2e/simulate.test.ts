import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { decodeFunctionResult, encodeFunctionData, parseEther } from 'viem'

import { Reverter, Store } from './fixtures/contracts.ts'
import { deploy, startChain, toHex, word } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain
let store: Hex
let reverter: Hex

beforeAll(async () => {
  t = await startChain()
  store = (await deploy(t, Store, [1n])).address
  reverter = (await deploy(t, Reverter)).address
  await t.mine()
})

afterAll(async () => {
  await t?.close()
})

const set = (value: bigint) => ({ to: store, abi: Store.abi, functionName: 'set', args: [value] }) as const
const read = () => ({ to: store, abi: Store.abi, functionName: 'value' }) as const

type SimulatedBlockJSON = {
  number: Hex
  hash: Hex
  parentHash: Hex
  timestamp: Hex
  baseFeePerGas: Hex
  transactions: Hex[]
  calls: {
    status: Hex
    returnData: Hex
    gasUsed: Hex
    logs: { address: Hex; topics: Hex[]; data: Hex; blockHash: Hex }[]
    error?: { code: number }
  }[]
}

describe('eth_simulateV1 through viem', () => {
  it('simulateCalls: a write, then a read that sees it, and nothing of it stays', async () => {
    const { results } = await t.publicClient.simulateCalls({ account: t.accounts[1]!.address, calls: [set(5n), read()] })
    expect(results.map((result) => result.status)).toEqual(['success', 'success'])
    expect(results[1]!.result).toBe(5n)
    expect(results[0]!.logs).toHaveLength(1)
    expect(results[0]!.gasUsed).toBeGreaterThan(21_000n)
    expect(await t.rpc('eth_getStorageAt', [store, '0x0', 'latest'])).toBe(word(1n))
  })

  it('simulateCalls on pending sees a pre-confirmed write before its block seals', async () => {
    await t.wallet(2).writeContract({ address: store, abi: Store.abi, functionName: 'set', args: [9n] })
    await t.preconfirm()
    const pending = await t.publicClient.simulateCalls({ account: t.accounts[1]!.address, calls: [read()], blockTag: 'pending' })
    expect(pending.results[0]!.result).toBe(9n)
    const latest = await t.publicClient.simulateCalls({ account: t.accounts[1]!.address, calls: [read()], blockTag: 'latest' })
    expect(latest.results[0]!.result).toBe(1n)
    await t.mine()
    const sealed = await t.publicClient.simulateCalls({ account: t.accounts[1]!.address, calls: [read()] })
    expect(sealed.results[0]!.result).toBe(9n)
  })

  it('simulateBlocks: each block sees the state the one before left, with its own overrides', async () => {
    const head = await t.publicClient.getBlock()
    const poor = '0x00000000000000000000000000000000000f00d1'
    const blocks = await t.publicClient.simulateBlocks({
      blocks: [
        { calls: [{ account: t.accounts[1]!.address, ...set(21n) }] },
        {
          blockOverrides: { time: head.timestamp + 100n },
          stateOverrides: [{ address: poor, balance: parseEther('1') }],
          calls: [
            { account: poor, ...read() },
            { account: poor, to: t.accounts[3]!.address, value: parseEther('0.5') },
          ],
        },
      ],
    })
    expect(blocks.map((block) => block.number)).toEqual([head.number + 1n, head.number + 2n])
    expect(blocks[1]!.parentHash).toBe(blocks[0]!.hash)
    expect(blocks[0]!.parentHash).toBe(head.hash)
    expect(blocks[1]!.timestamp).toBe(head.timestamp + 100n)
    expect(blocks[0]!.timestamp).toBe(head.timestamp + 12n)
    expect(blocks[1]!.calls[0]!.result).toBe(21n)
    expect(blocks[1]!.calls[1]!.status).toBe('success')
    expect(blocks.map((block) => block.transactions.length)).toEqual([1, 2])
    // Without validation a block's base fee is 0.
    expect(blocks[0]!.baseFeePerGas).toBe(0n)
  })
})

describe('eth_simulateV1', () => {
  it('a revert answers code 3 and its data in the call, and later calls still run', async () => {
    const nope = encodeFunctionData({ abi: Reverter.abi, functionName: 'nope' })
    const [block] = await t.rpc<SimulatedBlockJSON[]>('eth_simulateV1', [
      {
        blockStateCalls: [
          {
            calls: [
              { to: reverter, input: nope },
              { to: store, input: encodeFunctionData({ abi: Store.abi, functionName: 'value' }) },
            ],
          },
        ],
      },
    ])
    expect(block!.calls[0]).toMatchObject({ status: '0x0', returnData: '0x', error: { code: 3, message: 'execution reverted: nope' } })
    expect(decodeFunctionResult({ abi: Store.abi, functionName: 'value', data: block!.calls[1]!.returnData })).toBe(9n)
  })

  it('traceTransfers logs each ether transfer as an ERC-7528 Transfer; every log carries the block hash', async () => {
    const from = '0x00000000000000000000000000000000000f00d2'
    const to = '0x00000000000000000000000000000000000f00d3'
    const [block] = await t.rpc<SimulatedBlockJSON[]>('eth_simulateV1', [
      { blockStateCalls: [{ stateOverrides: { [from]: { balance: '0x100' } }, calls: [{ from, to, value: '0x40' }] }], traceTransfers: true },
      'latest',
    ])
    expect(block!.calls[0]!.logs).toEqual([
      expect.objectContaining({
        address: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
        topics: [
          '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
          `0x${from.slice(2).padStart(64, '0')}`,
          `0x${to.slice(2).padStart(64, '0')}`,
        ],
        data: word(0x40n),
        blockHash: block!.hash,
      }),
    ])
  })

  it('movePrecompileToAddress: the precompile answers at its new address, for that block only', async () => {
    const identity = '0x0000000000000000000000000000000000000004'
    const moved = '0x0000000000000000000000000000000000c0ffee'
    const echo = { to: moved, input: '0x1234' }
    const blocks = await t.rpc<SimulatedBlockJSON[]>('eth_simulateV1', [
      {
        blockStateCalls: [
          { stateOverrides: { [identity]: { movePrecompileToAddress: moved } }, calls: [echo, { to: identity, input: '0x1234' }] },
          { calls: [echo, { to: identity, input: '0x1234' }] },
        ],
      },
    ])
    expect(blocks.map((block) => block.calls.map((call) => call.returnData))).toEqual([
      ['0x1234', '0x'],
      ['0x', '0x1234'],
    ])
    const error = await t.rpcError('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides: { [store]: { movePrecompileToAddress: moved } } }] }])
    expect(error).toEqual({ code: -32000, message: `account ${store} is not a precompile` })
    // eth_call takes no such override.
    expect((await t.rpcError('eth_call', [{ to: moved }, 'latest', { [identity]: { movePrecompileToAddress: moved } }])).code).toBe(-32602)
  })

  it('validation: the base fee applies and a fee below it is -38012; nonces are checked', async () => {
    const from = t.accounts[5]!.address
    const error = await t.rpcError('eth_simulateV1', [{ blockStateCalls: [{ calls: [{ from, to: store }] }], validation: true }])
    expect(error.code).toBe(-38012)
    const nonce = await t.publicClient.getTransactionCount({ address: from })
    const low = await t.rpcError('eth_simulateV1', [
      { blockStateCalls: [{ calls: [{ from, to: store, nonce: toHex(nonce + 5), maxFeePerGas: '0x3b9aca000' }] }], validation: true },
    ])
    expect(low.code).toBe(-38011)
  })

  it('errors: blocks out of order -38020/-38021, an empty request -32602, an unknown block -32001', async () => {
    const head = await t.blockNumber()
    expect((await t.rpcError('eth_simulateV1', [{ blockStateCalls: [{ blockOverrides: { number: toHex(head) } }] }])).code).toBe(-38020)
    const latest = await t.publicClient.getBlock()
    expect((await t.rpcError('eth_simulateV1', [{ blockStateCalls: [{ blockOverrides: { time: toHex(latest.timestamp) } }] }])).code).toBe(-38021)
    expect((await t.rpcError('eth_simulateV1', [{ blockStateCalls: [] }])).code).toBe(-32602)
    expect((await t.rpcError('eth_simulateV1', [{ blockStateCalls: [{}] }, toHex(head + 10n)])).code).toBe(-32001)
    expect(await t.rpc('eth_getStorageAt', [store, '0x0', 'latest'])).toBe(word(9n))
  })
})
