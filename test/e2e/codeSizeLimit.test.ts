/**
 * --code-size-limit and --disable-code-size-limit, as anvil has them: EIP-170's limit on deployed code (24576 bytes)
 * and EIP-3860's on initcode (twice it), in blocks, eth_call, eth_estimateGas, eth_simulateV1 and the execution
 * worker, which runs calls and estimates on its own thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { getContractAddress } from 'viem'

import { parseCommandLine } from '../../src/cli.ts'
import { startChain, toHex } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

/** Init code that deploys `size` zero bytes: PUSH2 size, PUSH1 0, RETURN (the memory it returns is all zeros). */
const deploying = (size: number) => `0x61${size.toString(16).padStart(4, '0')}6000f3` as Hex
/** Init code of `size` bytes that deploys nothing: STOP, then zeros. */
const initcodeOf = (size: number) => `0x${'00'.repeat(size)}` as Hex

const KB25 = 25_000

/** Sends a creation signed by account 1 and seals it; answers its receipt and the code at the address it made. */
async function deploy(t: TestChain, data: Hex) {
  const account = t.accounts[1]!
  const nonce = await t.publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' })
  const raw = await account.signTransaction({ chainId: t.chain.id, data, gas: 10_000_000n, maxFeePerGas: 10n ** 10n, nonce })
  const hash = await t.rpc<Hex>('eth_sendRawTransaction', [raw])
  await t.mine()
  const receipt = await t.publicClient.getTransactionReceipt({ hash })
  const address = getContractAddress({ from: account.address, nonce: BigInt(nonce) })
  return { receipt, code: await t.rpc<Hex>('eth_getCode', [address, 'latest']) }
}

const from = (t: TestChain) => t.accounts[1]!.address

describe('without a flag: EIP-170 and EIP-3860 as the fork has them', () => {
  let t: TestChain
  beforeAll(async () => {
    t = await startChain({ workers: 1 })
  })
  afterAll(async () => {
    await t?.close()
  })

  it('error: a 25 kB contract fails to deploy, with geth\'s "max code size exceeded" from eth_call and eth_estimateGas', async () => {
    const request = { from: from(t), data: deploying(KB25) }
    expect(await t.rpcError('eth_call', [request])).toEqual({ code: -32000, message: 'max code size exceeded' })
    expect(await t.rpcError('eth_estimateGas', [request])).toEqual({ code: -32000, message: 'max code size exceeded' })
    const { receipt, code } = await deploy(t, deploying(KB25))
    expect(receipt.status).toBe('reverted')
    expect(receipt.gasUsed).toBe(10_000_000n)
    expect(code).toBe('0x')
  })

  it('the limit itself deploys', async () => {
    expect(await t.rpc('eth_call', [{ from: from(t), data: deploying(24_576) }])).toBe(`0x${'00'.repeat(24_576)}`)
    const { receipt, code } = await deploy(t, deploying(24_576))
    expect(receipt.status).toBe('success')
    expect(code).toHaveLength(2 + 2 * 24_576)
  })

  it("error: initcode over 49152 bytes, with geth's words, from the calls and the pool's door", async () => {
    const request = { from: from(t), data: initcodeOf(49_153) }
    const message = 'max initcode size exceeded: code size 49153 limit 49152'
    expect(await t.rpcError('eth_call', [request])).toEqual({ code: -32000, message })
    expect(await t.rpcError('eth_estimateGas', [request])).toEqual({ code: -32000, message })
    const account = t.accounts[1]!
    const nonce = await t.publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' })
    const raw = await account.signTransaction({ chainId: t.chain.id, data: initcodeOf(49_153), gas: 5_000_000n, maxFeePerGas: 10n ** 10n, nonce })
    expect(await t.rpcError('eth_sendRawTransaction', [raw])).toEqual({
      code: -32000,
      message: 'max initcode size exceeded: code size 49153, limit 49152',
    })
  })
})

describe('disableCodeSizeLimit (--disable-code-size-limit)', () => {
  let t: TestChain
  beforeAll(async () => {
    t = await startChain({ workers: 1, disableCodeSizeLimit: true })
  })
  afterAll(async () => {
    await t?.close()
  })

  it('a 25 kB contract deploys: eth_call and eth_estimateGas answer, and the transaction deploys it', async () => {
    const request = { from: from(t), data: deploying(KB25) }
    expect(await t.rpc('eth_call', [request])).toBe(`0x${'00'.repeat(KB25)}`)
    const estimate = BigInt(await t.rpc<Hex>('eth_estimateGas', [request]))
    // 200 gas a byte of code deposited (EIP-170's creation cost) is most of it.
    expect(estimate > 200n * BigInt(KB25)).toBe(true)
    const { receipt, code } = await deploy(t, deploying(KB25))
    expect(receipt.status).toBe('success')
    expect(code).toBe(`0x${'00'.repeat(KB25)}`)
    expect(receipt.gasUsed <= estimate).toBe(true)
  })

  it('initcode over 49152 bytes runs too', async () => {
    expect(await t.rpc('eth_call', [{ from: from(t), data: initcodeOf(60_000) }])).toBe('0x')
    const { receipt } = await deploy(t, initcodeOf(60_000))
    expect(receipt.status).toBe('success')
  })

  it('eth_simulateV1 deploys it as well', async () => {
    const [block] = await t.rpc<{ calls: { status: Hex; returnData: Hex }[] }[]>('eth_simulateV1', [
      { blockStateCalls: [{ calls: [{ from: from(t), data: deploying(KB25) }] }] },
      'latest',
    ])
    expect(block!.calls[0]!.status).toBe('0x1')
    expect(block!.calls[0]!.returnData).toBe(`0x${'00'.repeat(KB25)}`)
  })
})

describe('codeSizeLimit (--code-size-limit N)', () => {
  let t: TestChain
  beforeAll(async () => {
    t = await startChain({ workers: 1, codeSizeLimit: 30_000 })
  })
  afterAll(async () => {
    await t?.close()
  })

  it('deploys up to N bytes and not one more; initcode up to 2N', async () => {
    expect(await t.rpc('eth_estimateGas', [{ from: from(t), data: deploying(30_000) }])).toMatch(/^0x[0-9a-f]+$/)
    expect(await t.rpcError('eth_estimateGas', [{ from: from(t), data: deploying(30_001) }])).toEqual({
      code: -32000,
      message: 'max code size exceeded',
    })
    expect((await deploy(t, deploying(30_000))).code).toHaveLength(2 + 2 * 30_000)
    expect((await deploy(t, deploying(30_001))).receipt.status).toBe('reverted')
    expect(await t.rpc('eth_call', [{ from: from(t), data: initcodeOf(60_000) }])).toBe('0x')
    expect(await t.rpcError('eth_call', [{ from: from(t), data: initcodeOf(60_001) }])).toEqual({
      code: -32000,
      message: 'max initcode size exceeded: code size 60001 limit 60000',
    })
  })
})

describe('the command line', () => {
  it("takes anvil's names (a refusal of both at once is in cli.test.ts)", () => {
    expect(parseCommandLine(['--code-size-limit', '30000'])).toMatchObject({ codeSizeLimit: 30_000, disableCodeSizeLimit: false })
    expect(parseCommandLine(['--disable-code-size-limit'])).toMatchObject({ codeSizeLimit: undefined, disableCodeSizeLimit: true })
    expect(toHex(24_576)).toBe('0x6000')
  })
})
