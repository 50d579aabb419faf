import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { encodeDeployData, encodeErrorResult, encodeFunctionData, parseEther } from 'viem'

import { Forwarder, Gate, Refunder, Reverter, Sink, Store } from './fixtures/contracts.ts'
import { deploy, startChain, toHex } from './helpers.ts'

import type { Hex, TransactionReceipt } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain
let from: Hex
const contracts = {
  refunder: '0x' as Hex,
  reverter: '0x' as Hex,
  sink: '0x' as Hex,
  middle: '0x' as Hex,
  outer: '0x' as Hex,
  gate: '0x' as Hex,
  store: '0x' as Hex,
}

beforeAll(async () => {
  t = await startChain()
  from = t.accounts[0]!.address
  const deployments = [
    (contracts.refunder = (await deploy(t, Refunder)).address),
    (contracts.reverter = (await deploy(t, Reverter)).address),
    (contracts.sink = (await deploy(t, Sink)).address),
    (contracts.gate = (await deploy(t, Gate)).address),
    (contracts.store = (await deploy(t, Store, [1n])).address),
  ]
  contracts.middle = (await deploy(t, Forwarder, [contracts.sink])).address
  contracts.outer = (await deploy(t, Forwarder, [contracts.middle])).address
  await t.mine()
  for (const address of [...deployments, contracts.middle, contracts.outer]) {
    expect(await t.rpc('eth_getCode', [address, 'latest'])).not.toBe('0x')
  }
})

afterAll(async () => {
  await t?.close()
})

async function estimate(request: Record<string, unknown>, block?: unknown): Promise<bigint> {
  return BigInt(await t.rpc<Hex>('eth_estimateGas', block === undefined ? [request] : [request, block]))
}

/** Sends from dev account 0 with exactly `gas`, pre-confirms, and returns the (pre-confirmed) receipt. */
async function sendWithGas(request: { to?: Hex; data?: Hex; value?: bigint }, gas: bigint): Promise<TransactionReceipt> {
  const hash = await t.wallet(0).sendTransaction({ ...request, gas } as never)
  const flashblock = await t.preconfirm()
  expect(flashblock.transactions).toContain(hash)
  const receipt = await t.publicClient.getTransactionReceipt({ hash })
  const sent = await t.publicClient.getTransaction({ hash })
  expect(sent.gas).toBe(gas)
  return receipt
}

describe('eth_estimateGas: transfers', () => {
  it('estimates a plain transfer at exactly 21000 (0x5208)', async () => {
    expect(await t.rpc('eth_estimateGas', [{ from, to: t.accounts[1]!.address, value: '0x1' }])).toBe('0x5208')
    expect(await t.rpc('eth_estimateGas', [{ from, to: '0x00000000000000000000000000000000000c0ffe', value: '0xde0b6b3a7640000' }])).toBe('0x5208')
    expect(await t.rpc('eth_estimateGas', [{ from, to: t.accounts[1]!.address }, 'pending'])).toBe('0x5208')
  })

  it('applies the EIP-7623 calldata floor to data sent to an account without code', async () => {
    // 1000 non-zero bytes: 4000 tokens; floor 21000 + 10 × 4000 = 61000 > standard 21000 + 16 × 1000 = 37000.
    const data: Hex = `0x${'ff'.repeat(1000)}`
    const gas = await estimate({ from, to: t.accounts[1]!.address, data })
    expect(gas).toBeGreaterThanOrEqual(61_000n)
    const receipt = await sendWithGas({ to: t.accounts[1]!.address, data }, gas)
    expect(receipt.status).toBe('success')
    expect(receipt.gasUsed).toBe(61_000n)
  })
})

describe('eth_estimateGas: sending exactly the estimate succeeds', () => {
  it('a deployment (no `to`)', async () => {
    const data = encodeDeployData({ abi: Store.abi, bytecode: Store.bytecode, args: [9n] })
    const gas = await estimate({ from, data })
    const receipt = await sendWithGas({ data }, gas)
    expect(receipt.status).toBe('success')
    expect(receipt.contractAddress).not.toBeNull()
    expect(gas).toBeGreaterThanOrEqual(receipt.gasUsed)
    await t.mine()
  })

  it('an SSTORE that is set and cleared in one transaction (the refund lowers gasUsed below what must be available)', async () => {
    const data = encodeFunctionData({ abi: Refunder.abi, functionName: 'churn' })
    const gas = await estimate({ from, to: contracts.refunder, data })
    const receipt = await sendWithGas({ to: contracts.refunder, data }, gas)
    expect(receipt.status).toBe('success')
    // 0 → 1 → 0 earns a 19,900 refund (capped at gasUsed / 5): the limit must cover the gas before the refund.
    expect(gas).toBeGreaterThan(receipt.gasUsed)
    expect(gas - receipt.gasUsed).toBeGreaterThan(5_000n)
    // The second SSTORE costs 100 but EIP-2200 wants more than 2300 left at it: the estimate covers that, and is
    // the least limit that does.
    expect(await t.rpcError('eth_estimateGas', [{ from, to: contracts.refunder, data, gas: toHex(gas - 1n) }])).toEqual({
      code: -32000,
      message: `gas required exceeds allowance (${gas - 1n})`,
    })
    await t.mine()
  })

  it('an ERC20-like transfer that empties the sender balance slot (a refund of 4,800)', async () => {
    const data = encodeFunctionData({ abi: Refunder.abi, functionName: 'transfer', args: [t.accounts[3]!.address, 1000n] })
    const gas = await estimate({ from, to: contracts.refunder, data })
    // The least limit that succeeds: one gas less runs out.
    expect((await t.rpcError('eth_estimateGas', [{ from, to: contracts.refunder, data, gas: toHex(gas - 1n) }])).message).toBe(
      `gas required exceeds allowance (${gas - 1n})`,
    )
    const receipt = await sendWithGas({ to: contracts.refunder, data }, gas)
    expect(receipt.status).toBe('success')
    expect(gas).toBeGreaterThan(receipt.gasUsed)
    await t.mine()
    expect(
      await t.publicClient.readContract({
        address: contracts.refunder,
        abi: Refunder.abi,
        functionName: 'balanceOf',
        args: [t.accounts[3]!.address],
      }),
    ).toBe(1000n)
    expect(await t.publicClient.readContract({ address: contracts.refunder, abi: Refunder.abi, functionName: 'balanceOf', args: [from] })).toBe(0n)
  })

  it('nested calls that forward all gas, where the innermost SSTORE needs 22,100 (the 63/64 rule)', async () => {
    const data = encodeFunctionData({ abi: Forwarder.abi, functionName: 'poke' })
    const gas = await estimate({ from, to: contracts.outer, data })
    const receipt = await sendWithGas({ to: contracts.outer, data }, gas)
    expect(receipt.status).toBe('success')
    expect(gas).toBeGreaterThanOrEqual(receipt.gasUsed)
    // What the transaction consumed is not enough as a limit: each level keeps 1/64 of what it has at its CALL.
    const starved = await t.rpcError('eth_estimateGas', [{ from, to: contracts.outer, data, gas: toHex(receipt.gasUsed) }])
    // The starved innermost call runs out of gas and the Forwarder above it reverts: a revert at the upper bound.
    expect(starved.code).toBe(-32000)
    expect(starved.message).toBe('execution reverted: inner call failed')
    await t.mine()
    expect(await t.publicClient.readContract({ address: contracts.sink, abi: Sink.abi, functionName: 'count' })).toBe(1n)
  })

  it('a call that only succeeds after a pre-confirmed transaction: pending estimates it, latest reverts', async () => {
    const enable = await t.wallet(0).sendTransaction({ to: contracts.gate, data: encodeFunctionData({ abi: Gate.abi, functionName: 'enable' }) })
    await t.preconfirm()
    expect((await t.publicClient.getTransactionReceipt({ hash: enable })).status).toBe('success')

    const data = encodeFunctionData({ abi: Gate.abi, functionName: 'bump' })
    const latest = await t.rpcError('eth_estimateGas', [{ from, to: contracts.gate, data }, 'latest'])
    expect(latest).toEqual({
      code: -32000,
      message: 'execution reverted: disabled',
      data: encodeErrorResult({ abi: [{ type: 'error', name: 'Error', inputs: [{ type: 'string' }] }], errorName: 'Error', args: ['disabled'] }),
    })
    // Without a block parameter the estimate is against latest too.
    expect((await t.rpcError('eth_estimateGas', [{ from, to: contracts.gate, data }])).message).toBe('execution reverted: disabled')

    const gas = await estimate({ from, to: contracts.gate, data }, 'pending')
    const receipt = await sendWithGas({ to: contracts.gate, data }, gas)
    expect(receipt.status).toBe('success')
    expect(gas).toBeGreaterThanOrEqual(receipt.gasUsed)
    expect(await t.publicClient.readContract({ address: contracts.gate, abi: Gate.abi, functionName: 'count', blockTag: 'pending' })).toBe(1n)
    await t.mine()
  })
})

describe('eth_estimateGas: reverts', () => {
  it('reports Error(string) as "execution reverted: nope" with the exact revert bytes in data', async () => {
    const error = await t.rpcError('eth_estimateGas', [
      { from, to: contracts.reverter, data: encodeFunctionData({ abi: Reverter.abi, functionName: 'nope' }) },
    ])
    expect(error).toEqual({
      code: -32000,
      message: 'execution reverted: nope',
      // Error(string) selector, offset 0x20, length 4, "nope" right-padded.
      data:
        '0x08c379a0' +
        '0000000000000000000000000000000000000000000000000000000000000020' +
        '0000000000000000000000000000000000000000000000000000000000000004' +
        '6e6f706500000000000000000000000000000000000000000000000000000000',
    })
  })

  it('reports a custom error as "execution reverted" with the selector and arguments in data', async () => {
    const error = await t.rpcError('eth_estimateGas', [
      { from, to: contracts.reverter, data: encodeFunctionData({ abi: Reverter.abi, functionName: 'custom' }) },
    ])
    expect(error).toEqual({
      code: -32000,
      message: 'execution reverted',
      data: encodeErrorResult({ abi: Reverter.abi, errorName: 'Custom', args: [42n, from] }),
    })
  })

  it("decodes Panic(uint256) into geth's words", async () => {
    const error = await t.rpcError('eth_estimateGas', [
      { from, to: contracts.reverter, data: encodeFunctionData({ abi: Reverter.abi, functionName: 'panic', args: [0n] }) },
    ])
    expect(error).toEqual({
      code: -32000,
      message: 'execution reverted: division or modulo by zero',
      data: `0x4e487b71${'12'.padStart(64, '0')}`,
    })
  })

  it('answers a revert the same way with pending', async () => {
    const error = await t.rpcError('eth_estimateGas', [
      { from, to: contracts.reverter, data: encodeFunctionData({ abi: Reverter.abi, functionName: 'nope' }) },
      'pending',
    ])
    expect(error.code).toBe(-32000)
    expect(error.message).toBe('execution reverted: nope')
  })
})

describe('eth_estimateGas: other errors', () => {
  it('says "gas required exceeds allowance (N)" when the caller\'s gas is too little', async () => {
    // Store.set writes a non-zero slot (≥ 5,000 gas of SSTORE on top of the 21,000 + calldata).
    const data = encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [77n] })
    expect(await t.rpcError('eth_estimateGas', [{ from, to: contracts.store, data, gas: '0x5800' }])).toEqual({
      code: -32000,
      message: 'gas required exceeds allowance (22528)',
    })
    // The same call with enough gas given estimates below that gas.
    const gas = await estimate({ from, to: contracts.store, data, gas: '0x30000' })
    expect(gas).toBeLessThanOrEqual(0x30000n)
    expect(gas).toBeGreaterThan(0x5800n)
  })

  it('reports insufficient funds when value exceeds the balance and a gas price is given', async () => {
    const balance = await t.publicClient.getBalance({ address: from })
    const value = balance + parseEther('1')
    const error = await t.rpcError('eth_estimateGas', [{ from, to: t.accounts[1]!.address, value: toHex(value), gasPrice: '0x3b9aca00' }])
    expect(error.code).toBe(-32000)
    expect(error.message).toMatch(
      new RegExp(`^insufficient funds for gas \\* price \\+ value: address ${from.toLowerCase()} have ${balance} want \\d+$`),
    )
    const want = BigInt(error.message.split(' want ')[1]!)
    expect(want).toBeGreaterThanOrEqual(value)
  })

  it('reports insufficient funds when value exceeds the balance and no gas price is given (geth checks value regardless)', async () => {
    const poor = '0x0000000000000000000000000000000000000abc'
    expect(await t.rpc('eth_getBalance', [poor, 'latest'])).toBe('0x0')
    // geth's buyGas: balance must cover gas × price (0 here) + value, so this cannot execute.
    expect(await t.rpcError('eth_estimateGas', [{ from: poor, to: t.accounts[1]!.address, value: '0x10' }])).toEqual({
      code: -32000,
      message: `insufficient funds for gas * price + value: address ${poor} have 0 want 16`,
    })
    expect(await t.rpcError('eth_call', [{ from: poor, to: t.accounts[1]!.address, value: '0x10' }, 'latest'])).toEqual({
      code: -32000,
      message: `insufficient funds for gas * price + value: address ${poor} have 0 want 16`,
    })
  })

  it('says "gas required exceeds allowance (0)" for a priced estimate from an account without funds', async () => {
    expect(await t.rpcError('eth_estimateGas', [{ from: '0x0000000000000000000000000000000000000abc', to: from, gasPrice: '0x3b9aca00' }])).toEqual({
      code: -32000,
      message: 'gas required exceeds allowance (0)',
    })
  })

  it('answers -32001 for an unknown block', async () => {
    expect(await t.rpcError('eth_estimateGas', [{ from, to: t.accounts[1]!.address }, '0x99999'])).toEqual({
      code: -32001,
      message: 'block not found: 0x99999',
    })
    const unknown = `0x${'cd'.repeat(32)}`
    expect(await t.rpcError('eth_estimateGas', [{ from, to: t.accounts[1]!.address }, { blockHash: unknown }])).toEqual({
      code: -32001,
      message: `block not found: ${unknown}`,
    })
  })

  it('answers -32602 naming argument 0 and the field for a malformed `to`', async () => {
    expect(await t.rpcError('eth_estimateGas', [{ from, to: '0x1234', value: '0x1' }])).toEqual({
      code: -32602,
      message: 'invalid argument 0: to: hex string has length 4, want 40 for common.Address',
    })
    const error = await t.rpcError('eth_estimateGas', [{ from, to: 'not an address' }])
    expect(error.code).toBe(-32602)
    expect(error.message).toMatch(/^invalid argument 0: to: /)
  })

  it('answers -32602 naming argument 0 for a malformed quantity and argument 1 for a bad block', async () => {
    const value = await t.rpcError('eth_estimateGas', [{ from, to: t.accounts[1]!.address, value: '12' }])
    expect(value.code).toBe(-32602)
    expect(value.message).toMatch(/^invalid argument 0: value: /)
    const block = await t.rpcError('eth_estimateGas', [{ from, to: t.accounts[1]!.address }, 'lates'])
    expect(block.code).toBe(-32602)
    expect(block.message).toMatch(/^invalid argument 1: /)
  })

  it('answers -32602 when the transaction object is missing', async () => {
    expect(await t.rpcError('eth_estimateGas', [])).toEqual({ code: -32602, message: 'missing value for required argument 0' })
  })
})
