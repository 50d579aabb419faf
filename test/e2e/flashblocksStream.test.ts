/**
 * The flashblocks stream at /flashblocks, read by a raw `ws` client as a Base node reads the sequencer's: Brotli
 * frames decoded, each sealed block rebuilt from its flashblocks and compared with eth_getBlockByHash.
 */
import { brotliDecompressSync } from 'node:zlib'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { keccak256 } from 'viem'
import { WebSocket } from 'ws'

import { Store } from './fixtures/contracts.ts'
import { deploy, setStoreValue, startChain, toHex } from './helpers.ts'
import { wsUrl } from './wsHelpers.ts'

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

type Json = Record<string, unknown>
type Flashblock = FlashblockJSON

type Reader = {
  frames: { binary: boolean; data: Buffer }[]
  flashblocks(): Flashblock[]
  /** Resolves once `done` holds for the flashblocks read so far: they reach the reader a turn or more after they are published. */
  until(done: (flashblocks: Flashblock[]) => boolean): Promise<void>
  close(): void
  closed: Promise<{ code: number; reason: string }>
}

async function read(path: string): Promise<Reader> {
  const ws = new WebSocket(wsUrl(t.url, path))
  const frames: { binary: boolean; data: Buffer }[] = []
  const wake = new Set<() => void>()
  ws.on('message', (data: Buffer, binary: boolean) => {
    frames.push({ binary, data })
    for (const check of wake) check()
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  )
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  const flashblocks = () =>
    frames.map((frame) => JSON.parse((frame.binary ? brotliDecompressSync(frame.data) : frame.data).toString('utf8')) as Flashblock)
  const until = (done: (read: Flashblock[]) => boolean) =>
    new Promise<void>((resolve, reject) => {
      // A bound that only turns a frame that never comes into a failure that shows what came.
      const timer = setTimeout(() => {
        wake.delete(check)
        reject(
          new Error(`still waiting after 20 s; read: ${JSON.stringify(flashblocks().map(({ index, metadata }) => [metadata.block_number, index]))}`),
        )
      }, 20_000)
      const check = () => {
        if (!done(flashblocks())) return
        wake.delete(check)
        clearTimeout(timer)
        resolve()
      }
      wake.add(check)
      check()
    })
  return { frames, flashblocks, until, close: () => ws.close(), closed }
}

const setValue = (from: number, value: bigint) => setStoreValue(t, store, from, value)

describe('the flashblocks stream', () => {
  it('rebuilds each sealed block from its flashblocks: header fields and transactions, as eth_getBlockByHash', async () => {
    const brotli = await read('/flashblocks')
    const json = await read('/flashblocks?encoding=json')
    const first = [await setValue(1, 10n), await setValue(2, 11n)]
    await t.preconfirm() // flashblock 0 (system calls), then 1 with two transactions
    const second = [await setValue(3, 12n)]
    await t.preconfirm() // 2 with one
    const number = await t.mine() // 3, empty, closes the block
    await Promise.all([brotli, json].map((reader) => reader.until((read) => read.length >= 4)))

    expect(brotli.frames.every((frame) => frame.binary)).toBe(true)
    expect(json.frames.every((frame) => !frame.binary)).toBe(true)
    const flashblocks = brotli.flashblocks()
    expect(json.flashblocks()).toEqual(flashblocks)
    expect(flashblocks.map((flashblock) => flashblock.index)).toEqual([0, 1, 2, 3])
    expect(new Set(flashblocks.map((flashblock) => flashblock.payload_id)).size).toBe(1)
    expect(flashblocks[0]!.payload_id).toMatch(/^0x[0-9a-f]{16}$/)
    expect(flashblocks.map((flashblock) => 'base' in flashblock)).toEqual([true, false, false, false])
    expect(flashblocks.every((flashblock) => flashblock.metadata.block_number === Number(number))).toBe(true)

    // Rebuild: the header from base and the last diff, the transactions from every diff in order.
    const base = flashblocks[0]!.base!
    const last = flashblocks.at(-1)!.diff
    const transactions = flashblocks.flatMap((flashblock) => flashblock.diff.transactions)
    const sealed = await t.rpc<Json>('eth_getBlockByHash', [last.block_hash, false])
    expect(sealed).not.toBeNull()
    expect({
      number: base.block_number,
      parentHash: base.parent_hash,
      miner: base.fee_recipient,
      mixHash: base.prev_randao,
      gasLimit: base.gas_limit,
      timestamp: base.timestamp,
      extraData: base.extra_data,
      baseFeePerGas: base.base_fee_per_gas,
      parentBeaconBlockRoot: base.parent_beacon_block_root,
      hash: last.block_hash,
      stateRoot: last.state_root,
      receiptsRoot: last.receipts_root,
      logsBloom: last.logs_bloom,
      gasUsed: last.gas_used,
      withdrawalsRoot: last.withdrawals_root,
      withdrawals: last.withdrawals,
      transactions: transactions.map((raw) => keccak256(raw)),
    }).toEqual({
      number: sealed.number,
      parentHash: sealed.parentHash,
      miner: sealed.miner,
      mixHash: sealed.mixHash,
      gasLimit: sealed.gasLimit,
      timestamp: sealed.timestamp,
      extraData: sealed.extraData,
      baseFeePerGas: sealed.baseFeePerGas,
      parentBeaconBlockRoot: sealed.parentBeaconBlockRoot,
      hash: sealed.hash,
      stateRoot: sealed.stateRoot,
      receiptsRoot: sealed.receiptsRoot,
      logsBloom: sealed.logsBloom,
      gasUsed: sealed.gasUsed,
      withdrawalsRoot: sealed.withdrawalsRoot,
      withdrawals: sealed.withdrawals,
      transactions: [...first, ...second],
    })
    // Each diff holds only its own transactions.
    expect(flashblocks.map((flashblock) => flashblock.diff.transactions.map((raw) => keccak256(raw)))).toEqual([[], first, second, []])

    // Cumulative: flashblock 2 was the last to change the block, so the block it previewed is the sealed one.
    expect(flashblocks[2]!.diff).toMatchObject({
      block_hash: sealed.hash,
      state_root: sealed.stateRoot,
      receipts_root: sealed.receiptsRoot,
      gas_used: sealed.gasUsed,
    })
    expect(flashblocks[1]!.diff.block_hash).not.toBe(sealed.hash)
    expect(BigInt(flashblocks[1]!.diff.gas_used)).toBeLessThan(BigInt(sealed.gasUsed as Hex))

    // metadata: each transaction's receipt and the balances the flashblock wrote, in Base's earlier shape.
    for (const flashblock of flashblocks.slice(1, 3)) {
      for (const hash of flashblock.diff.transactions.map((raw) => keccak256(raw))) {
        const receipt = await t.rpc<Json>('eth_getTransactionReceipt', [hash])
        expect(flashblock.metadata.receipts[hash]).toEqual({
          Eip1559: {
            status: receipt.status,
            cumulativeGasUsed: receipt.cumulativeGasUsed,
            logs: (receipt.logs as Json[]).map(({ address, topics, data }) => ({ address, topics, data })),
          },
        })
      }
    }
    const sender = t.accounts[3]!.address.toLowerCase() as Hex
    expect(flashblocks[2]!.metadata.new_account_balances[sender]).toBe(await t.rpc('eth_getBalance', [sender, sealed.number]))
    expect(flashblocks[1]!.metadata.new_account_balances[sender]).toBeUndefined()
    brotli.close()
    json.close()
  })

  it('starts a reader at the next flashblock, and refuses an unknown encoding with 1008', async () => {
    const reader = await read('/flashblocks?encoding=json')
    await t.mine()
    await reader.until((read) => read.length >= 2)
    const flashblocks = reader.flashblocks()
    expect(flashblocks.map((flashblock) => flashblock.index)).toEqual([0, 1])
    expect(flashblocks[1]!.diff.block_hash).toBe((await t.rpc<Json>('eth_getBlockByNumber', ['latest', false])).hash)
    reader.close()

    const refused = await read('/flashblocks?encoding=gzip')
    expect(await refused.closed).toEqual({ code: 1008, reason: 'unknown encoding "gzip": use brotli or json' })
  })
})

describe('the flashblocks stream across evm_revert', () => {
  it('streams the block rebuilt from a snapshot: its pre-confirmed transactions again, from index 0, without a gap', async () => {
    const reader = await read('/flashblocks')
    const kept = await setValue(1, 20n)
    await t.preconfirm() // 0, then 1 with `kept`
    const id = await t.rpc<Hex>('evm_snapshot')
    await setValue(2, 21n)
    await t.preconfirm() // 2, undone by the revert
    expect(await t.rpc('evm_revert', [id])).toBe(true)
    const added = await setValue(3, 22n)
    const number = await t.mine()
    // The block's last flashblock carries the sealed block's hash.
    const { hash } = await t.rpc<{ hash: Hex }>('eth_getBlockByNumber', [toHex(number), false])
    await reader.until((read) => read.some((flashblock) => flashblock.diff.block_hash === hash))

    // A reader starts a block again at each index 0 (a Base node does): what follows the last one is the block.
    const flashblocks = reader.flashblocks().filter((flashblock) => flashblock.metadata.block_number === Number(number))
    const rebuilt = flashblocks.slice(flashblocks.findLastIndex((flashblock) => flashblock.index === 0))
    expect(rebuilt.map((flashblock) => flashblock.index)).toEqual(rebuilt.map((_, i) => i))
    const sealed = await t.rpc<Json>('eth_getBlockByHash', [rebuilt.at(-1)!.diff.block_hash, false])
    expect(sealed.transactions).toEqual([kept, added])
    expect(rebuilt.flatMap((flashblock) => flashblock.diff.transactions.map((raw) => keccak256(raw)))).toEqual([kept, added])
    reader.close()
  })
})

describe('the flashblocks stream on the interval clock', () => {
  it('rebuilds every block sealed while reading, transactions in order, as eth_getBlockByHash', async () => {
    const timed = await startChain({ mining: 'interval', blockTime: 200, flashblockInterval: 50 })
    const previous = t
    t = timed
    try {
      const reader = await read('/flashblocks')
      const first = await timed.blockNumber()
      const sender = timed.wallet(1)
      const sent: Hex[] = []
      for (let i = 0; i < 12; i++) {
        sent.push(await sender.sendTransaction({ to: timed.accounts[2]!.address, value: BigInt(i + 1) }))
        await new Promise((resolve) => setTimeout(resolve, 40))
      }
      // The block being built now is whole in the stream once the stream has begun the block after it; and at least
      // three whole blocks are read, however few the clock sealed during the sends on a busy machine.
      const last = await timed.blockNumber()
      const until = last + 2n > first + 5n ? last + 2n : first + 5n
      await reader.until((read) => read.some((flashblock) => flashblock.index === 0 && BigInt(flashblock.metadata.block_number) >= until))
      reader.close()

      // Whole blocks only: from an index 0 to the flashblock before the next index 0.
      const flashblocks = reader.flashblocks()
      const blocks: Flashblock[][] = []
      for (const flashblock of flashblocks) {
        if (flashblock.index === 0) blocks.push([])
        blocks.at(-1)?.push(flashblock)
      }
      const complete = blocks.slice(0, -1).filter((block) => block[0]?.index === 0)
      expect(complete.length).toBeGreaterThanOrEqual(3)
      const streamed: Hex[] = []
      for (const block of complete) {
        expect(block.map((flashblock) => flashblock.index)).toEqual(block.map((_, i) => i))
        const hashes = block.flatMap((flashblock) => flashblock.diff.transactions.map((raw) => keccak256(raw)))
        const sealed = await timed.rpc<Json>('eth_getBlockByHash', [block.at(-1)!.diff.block_hash, false])
        expect(sealed.number).toBe(block[0]!.base!.block_number)
        expect(sealed.number).toBe(toHex(block[0]!.metadata.block_number))
        expect(sealed.transactions).toEqual(hashes)
        expect(sealed.stateRoot).toBe(block.at(-1)!.diff.state_root)
        expect(sealed.receiptsRoot).toBe(block.at(-1)!.diff.receipts_root)
        expect(sealed.parentHash).toBe(block[0]!.base!.parent_hash)
        streamed.push(...hashes)
      }
      // The blocks read hold the transactions sent while reading, each once and in order.
      expect(sent.filter((hash) => streamed.includes(hash))).toEqual(streamed)
      expect(streamed.length).toBeGreaterThan(0)
    } finally {
      t = previous
      await timed.close()
    }
  })
})
