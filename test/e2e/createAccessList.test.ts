import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { encodeFunctionData } from 'viem'

import { Forwarder, Reverter, Sink, Store } from './fixtures/contracts.ts'
import { ZERO_WORD, deploy, startChain, toHex, word } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

type AccessListResult = { accessList: { address: Hex; storageKeys: Hex[] }[]; gasUsed: Hex; error?: string }

let t: TestChain
let from: Hex
let store: Hex
let sink: Hex
let forwarder: Hex
let reverter: Hex

beforeAll(async () => {
  t = await startChain()
  from = t.accounts[0]!.address.toLowerCase() as Hex
  store = (await deploy(t, Store, [1n])).address
  sink = (await deploy(t, Sink)).address
  reverter = (await deploy(t, Reverter)).address
  await t.mine()
  forwarder = (await deploy(t, Forwarder, [sink])).address
  await t.mine()
})

afterAll(async () => {
  await t?.close()
})

const setData = (value: bigint) => encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [value] })
const poke = encodeFunctionData({ abi: Forwarder.abi, functionName: 'poke' })

describe('eth_createAccessList', () => {
  it('default: the slots a call touches, and the gas a transaction carrying that list uses', async () => {
    const result = await t.rpc<AccessListResult>('eth_createAccessList', [{ from, to: store, data: setData(7n) }])
    // The recipient is warm anyway, but the slot it writes is listed under it.
    expect(result).toEqual({ accessList: [{ address: store, storageKeys: [ZERO_WORD] }], gasUsed: result.gasUsed })
    const hash = await t.wallet(0).sendTransaction({ to: store, data: setData(7n), accessList: result.accessList, type: 'eip2930' })
    await t.mine()
    const receipt = await t.publicClient.getTransactionReceipt({ hash })
    expect(toHex(receipt.gasUsed)).toBe(result.gasUsed)
  })

  it('a called contract is listed with its slots; the caller has none of its own', async () => {
    const result = await t.rpc<AccessListResult>('eth_createAccessList', [{ from, to: forwarder, data: poke }, 'latest'])
    expect(result.accessList).toEqual([{ address: sink, storageKeys: [ZERO_WORD] }])
    expect(result.error).toBeUndefined()
    const hash = await t.wallet(0).sendTransaction({ to: forwarder, data: poke, accessList: result.accessList })
    await t.mine()
    expect(toHex((await t.publicClient.getTransactionReceipt({ hash })).gasUsed)).toBe(result.gasUsed)
  })

  it('a revert is reported in `error`, with the list of what the run touched', async () => {
    const data = encodeFunctionData({ abi: Reverter.abi, functionName: 'nope' })
    const result = await t.rpc<AccessListResult>('eth_createAccessList', [{ from, to: reverter, data }])
    expect(result).toMatchObject({ accessList: [], error: 'execution reverted' })
    expect(BigInt(result.gasUsed)).toBeGreaterThan(21_000n)
  })

  it('pending sees a pre-confirmed deployment; a state override is applied first', async () => {
    const { address } = await deploy(t, Store, [3n])
    await t.preconfirm()
    expect(await t.rpc<AccessListResult>('eth_createAccessList', [{ from, to: address, data: setData(1n) }, 'pending'])).toMatchObject({
      accessList: [{ address, storageKeys: [ZERO_WORD] }],
    })
    await t.mine()
    // Sink's code in place of the store's: the call now touches what Sink.poke touches (its counter, slot 0).
    const sinkCode = await t.rpc<Hex>('eth_getCode', [sink, 'latest'])
    const pokeSink = encodeFunctionData({ abi: Sink.abi, functionName: 'poke' })
    const overridden = await t.rpc<AccessListResult>('eth_createAccessList', [
      { from, to: store, data: pokeSink },
      'latest',
      { [store]: { code: sinkCode } },
    ])
    expect(overridden).toMatchObject({ accessList: [{ address: store, storageKeys: [word(0n)] }] })
    expect(overridden.error).toBeUndefined()
  })

  it('error: a call that cannot start is -32000; a malformed request -32602', async () => {
    const poor = '0x00000000000000000000000000000000000c0ffe'
    const error = await t.rpcError('eth_createAccessList', [{ from: poor, to: store, value: '0x1' }])
    expect(error.code).toBe(-32000)
    expect(error.message).toMatch(/^failed to apply transaction: insufficient funds/)
    expect((await t.rpcError('eth_createAccessList', [{ from, to: '0x12' }])).code).toBe(-32602)
  })
})
