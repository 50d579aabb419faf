/**
 * flashchain_getFlashblocks: a reader of the flashblocks stream that lost its connection asks for what it missed and
 * goes on without a gap. Another reader, connected throughout, is what the answer is compared with.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { setStoreValue, deploy, startChain } from './helpers.ts'
import { Store } from './fixtures/contracts.ts'
import { readFlashblocks } from './flashblocksReader.ts'

import type { Hex } from 'viem'
import type { FlashblockJSON } from '../../src/rpc/flashblocks.ts'
import type { TestChain } from './helpers.ts'

let t: TestChain
let store: Hex

beforeAll(async () => {
  t = await startChain()
  store = (await deploy(t, Store, [1n])).address
  await t.mine()
})

afterAll(async () => {
  await t?.close()
})

const reader = () => readFlashblocks(t.url)

const id = (flashblock: FlashblockJSON) => `${flashblock.metadata.block_number}.${flashblock.index}`

describe('flashchain_getFlashblocks', () => {
  it('gives a reader that dropped what it missed, as the stream sent it to a reader that stayed', async () => {
    const steady = await reader()
    const dropping = await reader()
    await setStoreValue(t, store, 1, 10n)
    await t.preconfirm()
    await dropping.until((got) => got.some((flashblock) => flashblock.diff.transactions.length > 0))
    await dropping.close()
    const last = dropping.got.at(-1)!

    // Missed: the rest of this block, the seal, and the next block's first flashblocks.
    await setStoreValue(t, store, 2, 11n)
    await t.preconfirm()
    await t.mine()
    await setStoreValue(t, store, 3, 12n)
    await t.preconfirm()
    await steady.until((got) =>
      got.some((flashblock) => flashblock.diff.transactions.length > 0 && flashblock.metadata.block_number > last.metadata.block_number),
    )

    const missed = await t.rpc<FlashblockJSON[]>('flashchain_getFlashblocks', [`0x${last.metadata.block_number.toString(16)}`, last.index + 1])
    const after = steady.got.slice(steady.got.findIndex((flashblock) => id(flashblock) === id(last)) + 1)
    expect(missed.map(id)).toEqual(after.map(id))
    expect(missed).toEqual(after)
    expect(missed.flatMap((flashblock) => flashblock.diff.transactions)).toHaveLength(2)
    // Nothing newer yet: an empty list, not an error.
    const newest = steady.got.at(-1)!
    expect(await t.rpc('flashchain_getFlashblocks', [newest.metadata.block_number, newest.index + 1])).toEqual([])
    await steady.close()
  })

  it('error: a flashblock no longer kept (or never: before the stream had a reader) is -32001 naming the oldest kept', async () => {
    const steady = await reader()
    await t.preconfirm()
    await steady.until((got) => got.length > 0)
    const error = await t.rpcError('flashchain_getFlashblocks', ['0x1', 0])
    expect(error.code).toBe(-32001)
    expect(error.message).toMatch(/^block 1's flashblock 0 is not kept: the oldest kept is block \d+'s flashblock \d+$/)
    expect((await t.rpcError('flashchain_getFlashblocks', ['0x1', -1])).code).toBe(-32602)
    await steady.close()
  })
})
