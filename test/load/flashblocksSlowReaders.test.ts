/**
 * The flashblocks stream under load with readers that never read: a reader that keeps up gets every flashblock of
 * every block, in order and once, whatever the others do, and the ones that fall behind are closed, as Base's
 * websocket proxy drops a consumer that overflows its buffer.
 */
import { randomBytes } from 'node:crypto'
import { brotliDecompressSync } from 'node:zlib'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { keccak256, toHex } from 'viem'
import { WebSocket } from 'ws'

import { startChain } from '../e2e/helpers.ts'
import { pollUntil } from '../e2e/walletHelpers.ts'
import { wsUrl } from '../e2e/wsHelpers.ts'

import type { Hex } from 'viem'
import type { FlashblockJSON } from '../../src/rpc/flashblocks.ts'
import type { TestChain } from '../e2e/helpers.ts'

/** Readers that never read. */
const SLOW_READERS = 8
const SENDERS = 8
/** Transactions sent each second, for SECONDS. */
const RATE = 60
const SECONDS = 12
/**
 * Random calldata per transaction, which Brotli cannot shrink much: megabytes of frames a second for each reader, so
 * one that never reads is past what the kernel holds for its socket and past the sender's limit within seconds.
 */
const CALLDATA_BYTES = 48 * 1024

let t: TestChain
const lines: string[] = []

beforeAll(async () => {
  // Room for RATE transactions of CALLDATA_BYTES each (EIP-7623's floor: 40 gas a byte) in each block.
  t = await startChain({ mining: 'interval', blockGasLimit: 1_000_000_000n, log: (line) => lines.push(line) })
})

afterAll(async () => {
  await t?.close()
})

type Received = { number: number; index: number; blockHash: Hex; hashes: Hex[] }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function open(path: string): Promise<WebSocket> {
  const ws = new WebSocket(wsUrl(t.url, path))
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  return ws
}

const closed = (ws: WebSocket) => new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)))

/** Signed transfers with random calldata, SENDERS accounts taking turns, nonces from each one's current one. */
async function signAll(count: number): Promise<Hex[]> {
  const accounts = t.accounts.slice(1, 1 + SENDERS)
  const nonces = await Promise.all(accounts.map((account) => t.publicClient.getTransactionCount({ address: account.address })))
  const fees = { maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 1n }
  const signed: Hex[] = []
  for (let i = 0; i < count; i++) {
    const sender = i % SENDERS
    signed.push(
      await accounts[sender]!.signTransaction({
        chainId: t.chain.id,
        type: 'eip1559',
        nonce: nonces[sender]! + Math.floor(i / SENDERS),
        to: t.accounts[0]!.address,
        value: 1n,
        data: toHex(randomBytes(CALLDATA_BYTES)),
        gas: 21_000n + 40n * BigInt(CALLDATA_BYTES),
        ...fees,
      }),
    )
  }
  return signed
}

describe('the flashblocks stream with readers that never read', () => {
  it('gives a reader that keeps up every transaction once, frames in order, and closes the ones that fell behind', async () => {
    const transactions = await signAll(RATE * SECONDS)

    const slow: { ws: WebSocket; closed: Promise<number> }[] = []
    for (let i = 0; i < SLOW_READERS; i++) {
      const ws = await open('/flashblocks')
      // The socket is not read from now on: what the server sends piles up in the kernel, then in the server.
      ws.pause()
      slow.push({ ws, closed: closed(ws) })
    }
    const full = await open('/flashblocks')
    const received: Received[] = []
    full.on('message', (data: Buffer) => {
      const flashblock = JSON.parse(brotliDecompressSync(data).toString('utf8')) as FlashblockJSON
      received.push({
        number: flashblock.metadata.block_number,
        index: flashblock.index,
        blockHash: flashblock.diff.block_hash,
        hashes: flashblock.diff.transactions.map((raw) => keccak256(raw)),
      })
    })
    const fullClosed = closed(full)

    // At a steady rate, without waiting for answers: as a busy client sends.
    const acknowledged: Hex[] = []
    const answers: Promise<void>[] = []
    const started = performance.now()
    for (const [i, raw] of transactions.entries()) {
      const wait = started + (i * 1000) / RATE - performance.now()
      if (wait > 0) await sleep(wait)
      answers.push(t.rpc<Hex>('eth_sendRawTransaction', [raw]).then((hash) => void acknowledged.push(hash)))
    }
    await Promise.all(answers)
    expect(acknowledged.length).toBe(transactions.length)

    // Until the block holding the last of them is sealed, and the reader has a flashblock of a later block: the stream
    // is in order, so it has read every frame of that one.
    const last = acknowledged.at(-1)!
    const sealedIn = await pollUntil(
      async () => {
        const receipt = await t.rpc<{ blockNumber: Hex; blockHash: Hex } | null>('eth_getTransactionReceipt', [last])
        if (receipt === null) return undefined
        const sealed = await t.rpc<{ hash: Hex } | null>('eth_getBlockByHash', [receipt.blockHash, false])
        return sealed === null ? undefined : Number(receipt.blockNumber)
      },
      (number) => number !== undefined,
    )
    await pollUntil(
      async () => received.at(-1)?.number,
      (number) => number !== undefined && number > sealedIn!,
    )
    full.close()
    expect(await fullClosed).toBe(1005)

    // In order: each frame is the next index of its block, or index 0 of the next block (from the first index 0 on:
    // the reader joined mid-block).
    const frames = received.slice(received.findIndex((frame) => frame.index === 0))
    const breaks = frames.flatMap((frame, i) => {
      const before = frames[i - 1]
      if (before === undefined) return []
      const next = frame.number === before.number ? frame.index === before.index + 1 : frame.number === before.number + 1 && frame.index === 0
      return next ? [] : [`${before.number}.${before.index} → ${frame.number}.${frame.index}`]
    })
    expect(breaks).toEqual([])

    // Each transaction acknowledged is in exactly one frame.
    const streamed = received.flatMap((frame) => frame.hashes)
    const counts = new Map<Hex, number>()
    for (const hash of streamed) counts.set(hash, (counts.get(hash) ?? 0) + 1)
    expect(acknowledged.filter((hash) => counts.get(hash) !== 1)).toEqual([])
    expect(streamed.length).toBe(new Set(streamed).size)

    // Each block read whole holds, in order, the transactions of the block sealed with the hash of its last frame.
    const blocks = Map.groupBy(frames, (frame) => frame.number)
    for (const [number, block] of blocks) {
      if (number > sealedIn!) continue
      const sealed = await t.rpc<{ number: Hex; transactions: Hex[] }>('eth_getBlockByHash', [block.at(-1)!.blockHash, false])
      expect(sealed.number).toBe(toHex(number))
      expect(block.flatMap((frame) => frame.hashes)).toEqual(sealed.transactions)
    }

    // The readers that never read were closed for it: once read again, each ends with the server's 1008, unless it
    // was cut first (1006, and a log line), past the close grace or when the node needed the room. On a loaded
    // machine the run can outlast the grace before the readers come back.
    for (const { ws } of slow) ws.resume()
    const codes = await Promise.all(slow.map(({ closed }) => closed))
    const cut = lines.filter((line) => line.startsWith('cut WebSocket')).length
    expect(codes.filter((code) => code !== 1008)).toEqual(Array(cut).fill(1006))
  }, 90_000)
})
