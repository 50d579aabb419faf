import { afterAll, beforeAll, describe, expect, test } from 'vitest'

import { createFlashchain, type Flashchain } from '../../src/index.ts'

// The one suite that runs the real clocks. Its bounds are loose on purpose: it checks what happens, and in which
// order, not how fast (speed is measured by bench/, never asserted by tests).
const blockTime = 1_000
const flashblockInterval = 50

let flashchain: Flashchain
beforeAll(async () => {
  flashchain = await createFlashchain({ port: 0, blockTime, flashblockInterval })
})
afterAll(() => flashchain.close())

const request = (method: string, params: unknown[] = []) => flashchain.request({ method, params })

async function until<T>(probe: () => Promise<T | undefined>, limitMs: number): Promise<T> {
  const deadline = Date.now() + limitMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`not reached within ${limitMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('interval mining', () => {
  test('blocks seal on their own, each later than the last', async () => {
    const start = BigInt((await request('eth_blockNumber')) as string)
    const next = await until(async () => {
      const number = BigInt((await request('eth_blockNumber')) as string)
      return number >= start + 2n ? number : undefined
    }, 10 * blockTime)
    const [a, b] = await Promise.all([
      request('eth_getBlockByNumber', [`0x${(next - 1n).toString(16)}`, false]),
      request('eth_getBlockByNumber', [`0x${next.toString(16)}`, false]),
    ])
    expect(BigInt((b as { timestamp: string }).timestamp)).toBeGreaterThan(BigInt((a as { timestamp: string }).timestamp))
    expect((b as { parentHash: string }).parentHash).toBe((a as { hash: string }).hash)
  })

  test('a transaction is pre-confirmed by a flashblock, then sealed in that same block', async () => {
    const [from, to] = flashchain.chain.spec.accounts
    const hash = (await request('eth_sendTransaction', [{ from: from!.address, to: to!.address, value: '0x1' }])) as string
    // eth_sendRawTransactionSync's wait, without a raw transaction: the first flashblock that has it.
    expect(await flashchain.chain.pool.waitForPreconfirmation(hash as `0x${string}`, 10 * blockTime)).toBe(true)
    const preconfirmed = (await request('eth_getTransactionReceipt', [hash])) as { blockNumber: string; status: string }
    expect(preconfirmed.status).toBe('0x1')
    // A pre-confirmed receipt already has a block hash (the block's as built so far): wait for the head instead.
    await until(
      async () => (BigInt((await request('eth_blockNumber')) as string) >= BigInt(preconfirmed.blockNumber) ? true : undefined),
      10 * blockTime,
    )
    const sealed = (await request('eth_getTransactionReceipt', [hash])) as { blockHash: string; blockNumber: string }
    expect(sealed.blockNumber).toBe(preconfirmed.blockNumber)
    const block = (await request('eth_getBlockByNumber', [sealed.blockNumber, false])) as { transactions: string[]; hash: string }
    expect(block.transactions).toContain(hash)
    expect(block.hash).toBe(sealed.blockHash)
  })
})
