import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { bytesToHex, encodeFunctionData, fromRlp, hexToBytes, keccak256, parseTransaction, toRlp } from 'viem'

import { Store } from './fixtures/contracts.ts'
import { deploy, startChain, toHex } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain
let store: Hex

beforeAll(async () => {
  t = await startChain()
  store = (await deploy(t, Store, [5n])).address
  await t.mine()
})

afterAll(async () => {
  await t?.close()
})

type ReceiptJSON = { transactionHash: Hex; transactionIndex: Hex; blockHash: Hex | null; blockNumber: Hex; logs: { logIndex: Hex }[] }
type BlockJSON = { hash: Hex; number: Hex; receiptsRoot: Hex; transactions: Hex[] }

/** The root of the receipts trie over encoded receipts, keyed by the RLP of their index (the Yellow Paper's). */
async function receiptsRoot(receipts: Hex[]): Promise<Hex> {
  const trie = new MerklePatriciaTrie()
  for (const [index, receipt] of receipts.entries()) await trie.put(hexToBytes(toRlp(index === 0 ? '0x' : toHex(index))), hexToBytes(receipt))
  return bytesToHex(trie.root())
}

/** Sends `Store.set(value)` from dev account `from`; the hash. */
function set(from: number, value: bigint): Promise<Hex> {
  return t.wallet(from).sendTransaction({ to: store, data: encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [value] }) })
}

describe('receipts and transactions by block', () => {
  it('eth_getBlockReceipts answers the pending block before the seal, then the sealed one, each as eth_getTransactionReceipt does', async () => {
    const first = await set(1, 7n)
    const second = await t.wallet(2).sendTransaction({ to: t.accounts[3]!.address, value: 1n })
    const third = await set(3, 8n)
    expect(await t.rpc('eth_getBlockReceipts', ['pending'])).toEqual([])
    await t.preconfirm()

    const pending = await t.rpc<ReceiptJSON[]>('eth_getBlockReceipts', ['pending'])
    expect(pending.map((receipt) => receipt.transactionHash)).toEqual([first, second, third])
    // The hash of the block as built so far (Base's diff.block_hash): the pending block's own.
    const pendingBlock = await t.rpc<BlockJSON>('eth_getBlockByNumber', ['pending', false])
    expect(pending.map((receipt) => receipt.blockHash)).toEqual([pendingBlock.hash, pendingBlock.hash, pendingBlock.hash])
    expect(pending.map((receipt) => receipt.logs.map((entry) => entry.logIndex))).toEqual([['0x0'], [], ['0x1']])
    for (const receipt of pending) expect(await t.rpc('eth_getTransactionReceipt', [receipt.transactionHash])).toEqual(receipt)

    const number = await t.mine()
    const sealed = await t.rpc<ReceiptJSON[]>('eth_getBlockReceipts', [toHex(number)])
    expect(sealed.map((receipt) => receipt.transactionHash)).toEqual([first, second, third])
    // Nothing arrived after that flashblock: the block sealed with the hash its receipts were pre-confirmed with.
    expect(sealed.map((receipt) => receipt.blockHash)).toEqual([pendingBlock.hash, pendingBlock.hash, pendingBlock.hash])
    for (const receipt of sealed) expect(await t.rpc('eth_getTransactionReceipt', [receipt.transactionHash])).toEqual(receipt)
    const block = await t.rpc<BlockJSON>('eth_getBlockByNumber', [toHex(number), false])
    expect(await t.rpc('eth_getBlockReceipts', [block.hash])).toEqual(sealed)
    expect(await t.rpc('eth_getBlockReceipts', [{ blockHash: block.hash }])).toEqual(sealed)
    expect(await t.rpc('eth_getBlockReceipts', ['latest'])).toEqual(sealed)
  })

  it('eth_getBlockReceipts: null for a block past the head; -32602 for a malformed block', async () => {
    const head = await t.blockNumber()
    expect(await t.rpc('eth_getBlockReceipts', [toHex(head + 1n)])).toBeNull()
    expect(await t.rpc('eth_getBlockReceipts', [`0x${'ab'.repeat(32)}`])).toBeNull()
    expect((await t.rpcError('eth_getBlockReceipts', ['1'])).code).toBe(-32602)
  })

  it('eth_getTransactionByBlockNumberAndIndex and ByBlockHashAndIndex: sealed, pending, and null past the end', async () => {
    const hash = await set(4, 9n)
    await t.preconfirm()
    const pending = await t.rpc<{ hash: Hex; blockHash: Hex | null; transactionIndex: Hex }>('eth_getTransactionByBlockNumberAndIndex', [
      'pending',
      '0x0',
    ])
    expect(pending).toEqual(await t.rpc('eth_getTransactionByHash', [hash]))
    const pendingBlock = await t.rpc<BlockJSON>('eth_getBlockByNumber', ['pending', false])
    expect(pending).toMatchObject({ hash, blockHash: pendingBlock.hash, transactionIndex: '0x0' })
    expect(await t.rpc('eth_getTransactionByBlockNumberAndIndex', ['pending', '0x1'])).toBeNull()

    const number = await t.mine()
    const block = await t.rpc<BlockJSON>('eth_getBlockByNumber', [toHex(number), false])
    const byNumber = await t.rpc('eth_getTransactionByBlockNumberAndIndex', [toHex(number), '0x0'])
    expect(byNumber).toEqual(await t.rpc('eth_getTransactionByHash', [hash]))
    expect(await t.rpc('eth_getTransactionByBlockHashAndIndex', [block.hash, '0x0'])).toEqual(byNumber)
    expect(await t.rpc('eth_getTransactionByBlockHashAndIndex', [block.hash, '0x1'])).toBeNull()
    expect(await t.rpc('eth_getTransactionByBlockHashAndIndex', [`0x${'ab'.repeat(32)}`, '0x0'])).toBeNull()
    expect(await t.rpc('eth_getTransactionByBlockNumberAndIndex', [toHex(number + 1n), '0x0'])).toBeNull()
    // An index with leading zeros, or a JSON integer, as anvil takes them.
    expect(await t.rpc('eth_getTransactionByBlockNumberAndIndex', [toHex(number), '0x00'])).toEqual(byNumber)
    expect(await t.rpc('eth_getTransactionByBlockHashAndIndex', [block.hash, 0])).toEqual(byNumber)
    expect(await t.rpcError('eth_getTransactionByBlockNumberAndIndex', [toHex(number), '0x'])).toEqual({
      code: -32602,
      message: 'invalid argument 1: hex string "0x"',
    })
  })
})

describe('raw encodings', () => {
  it('debug_getRawHeader hashes to the block hash, and debug_getRawBlock starts with that header', async () => {
    const number = await t.blockNumber()
    const block = await t.rpc<BlockJSON>('eth_getBlockByNumber', [toHex(number), false])
    const header = await t.rpc<Hex>('debug_getRawHeader', [toHex(number)])
    expect(keccak256(header)).toBe(block.hash)
    expect(await t.rpc('debug_getRawHeader', [block.hash])).toBe(header)
    const raw = await t.rpc<Hex>('debug_getRawBlock', [toHex(number)])
    const [rawHeader, transactions] = fromRlp(raw) as [Hex[], Hex[]]
    expect(toRlp(rawHeader)).toBe(header)
    expect(transactions).toHaveLength(block.transactions.length)
    expect(await t.rpc('debug_getRawBlock', ['latest'])).toBe(raw)
  })

  it('debug_getRawReceipts rebuild the receipts root of the block, typed receipts with their type byte', async () => {
    await set(5, 10n)
    await t.wallet(6).sendTransaction({ to: t.accounts[7]!.address, value: 2n, type: 'legacy' })
    const number = await t.mine()
    const block = await t.rpc<Omit<BlockJSON, 'transactions'> & { transactions: { type: Hex }[] }>('eth_getBlockByNumber', [toHex(number), true])
    const receipts = await t.rpc<Hex[]>('debug_getRawReceipts', [toHex(number)])
    expect(block.transactions.map((tx) => tx.type).sort()).toEqual(['0x0', '0x2'])
    // A typed receipt starts with its type; a legacy one is an RLP list (0xc0 and up).
    expect(
      receipts.map((receipt) => (Number.parseInt(receipt.slice(2, 4), 16) >= 0xc0 ? '0x0' : `0x${Number.parseInt(receipt.slice(2, 4), 16)}`)),
    ).toEqual(block.transactions.map((tx) => tx.type))
    expect(await receiptsRoot(receipts)).toBe(block.receiptsRoot)
    expect(await t.rpc('debug_getRawReceipts', [block.hash])).toEqual(receipts)
  })

  it('debug_getRawReceipts of the pending block are those its seal commits to', async () => {
    await set(8, 11n)
    await t.preconfirm()
    const pending = await t.rpc<Hex[]>('debug_getRawReceipts', ['pending'])
    expect(pending).toHaveLength(1)
    const number = await t.mine()
    expect(await t.rpc('debug_getRawReceipts', [toHex(number)])).toEqual(pending)
  })

  it('debug_getRawTransaction of a pooled, a pre-confirmed and a sealed transaction hashes to its hash', async () => {
    const hash = await set(9, 12n)
    const pooled = await t.rpc<Hex>('debug_getRawTransaction', [hash])
    expect(keccak256(pooled)).toBe(hash)
    expect(parseTransaction(pooled as Parameters<typeof parseTransaction>[0])).toMatchObject({ to: store, nonce: expect.any(Number) })
    await t.preconfirm()
    expect(await t.rpc('debug_getRawTransaction', [hash])).toBe(pooled)
    await t.mine()
    expect(await t.rpc('debug_getRawTransaction', [hash])).toBe(pooled)
    expect(await t.rpc('debug_getRawTransaction', [`0x${'cd'.repeat(32)}`])).toBeNull()
  })

  it('a block past the head is null; an unknown hash is -32000 for a header or block, and no receipts', async () => {
    const next = toHex((await t.blockNumber()) + 1n)
    const unknown = `0x${'ef'.repeat(32)}`
    for (const method of ['debug_getRawBlock', 'debug_getRawHeader', 'debug_getRawReceipts']) {
      expect(await t.rpc(method, [next])).toBeNull()
      expect((await t.rpcError(method, ['2'])).code).toBe(-32602)
    }
    expect(await t.rpc('debug_getRawBlock', ['pending'])).toBeNull()
    expect(await t.rpc('debug_getRawHeader', ['pending'])).toBeNull()
    expect(await t.rpcError('debug_getRawBlock', [{ blockHash: unknown }])).toEqual({ code: -32000, message: `block ${unknown} not found` })
    expect(await t.rpcError('debug_getRawHeader', [{ blockHash: unknown }])).toEqual({ code: -32000, message: `header ${unknown} not found` })
    expect(await t.rpc('debug_getRawReceipts', [{ blockHash: unknown }])).toEqual([])
  })
})
