import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { bytesToHex, encodeFunctionData, hexToBytes, keccak256, toRlp } from 'viem'

import { Store } from './fixtures/contracts.ts'
import { VALUE_SET, deploy, setStoreValue, startChain, toHex } from './helpers.ts'

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

type BlockJSON = Record<string, unknown> & {
  hash: Hex
  number: Hex
  stateRoot: Hex
  transactionsRoot: Hex
  receiptsRoot: Hex
  logsBloom: Hex
  transactions: Hex[]
}
type ReceiptJSON = {
  transactionHash: Hex
  blockHash: Hex
  blockNumber: Hex
  blockTimestamp: Hex
  transactionIndex: Hex
  logsBloom: Hex
  logs: { blockHash: Hex; blockTimestamp: Hex }[]
}

/** The root of an ordered trie over encoded items, keyed by the RLP of their index (the Yellow Paper's). */
async function orderedRoot(items: Hex[]): Promise<Hex> {
  const trie = new MerklePatriciaTrie()
  for (const [index, item] of items.entries()) await trie.put(hexToBytes(toRlp(index === 0 ? '0x' : toHex(index))), hexToBytes(item))
  return bytesToHex(trie.root())
}

/** The bitwise or of the receipts' blooms: the block's. */
function unionBloom(blooms: Hex[]): Hex {
  const union = new Uint8Array(256)
  for (const bloom of blooms) {
    for (const [i, byte] of hexToBytes(bloom).entries()) union[i]! |= byte
  }
  return bytesToHex(union)
}

describe('eth_getBlockByNumber("pending")', () => {
  it('has every field a sealed block has, with the roots and hash the block seals with when nothing else arrives', async () => {
    const first = await setStoreValue(t, store, 1, 7n)
    const second = await t.wallet(2).sendTransaction({ to: t.accounts[3]!.address, value: 1n })
    await t.preconfirm()

    const pending = await t.rpc<BlockJSON>('eth_getBlockByNumber', ['pending', false])
    const latest = await t.rpc<BlockJSON>('eth_getBlockByNumber', ['latest', false])
    expect(Object.keys(pending).sort()).toEqual(Object.keys(latest).sort())
    expect(Object.entries(pending).filter(([, value]) => value === null)).toEqual([])
    expect(pending.transactions).toEqual([first, second])
    expect(pending).toMatchObject({ parentHash: latest.hash, nonce: '0x0000000000000000', withdrawals: [], uncles: [] })

    // The roots are the tries of what the pending block holds, recomputed here.
    const raw = await Promise.all(pending.transactions.map((hash) => t.rpc<Hex>('debug_getRawTransaction', [hash])))
    expect(pending.transactionsRoot).toBe(await orderedRoot(raw))
    expect(pending.receiptsRoot).toBe(await orderedRoot(await t.rpc<Hex[]>('debug_getRawReceipts', ['pending'])))
    const receipts = await t.rpc<ReceiptJSON[]>('eth_getBlockReceipts', ['pending'])
    expect(pending.logsBloom).toBe(unionBloom(receipts.map((receipt) => receipt.logsBloom)))
    expect(pending.logsBloom).not.toBe(`0x${'00'.repeat(256)}`)

    // Sealed with nothing more: the same header, so the same hash.
    const number = await t.mine()
    const sealed = await t.rpc<BlockJSON>('eth_getBlockByNumber', [toHex(number), false])
    expect(sealed.number).toBe(pending.number)
    expect({ ...pending, size: sealed.size }).toEqual(sealed)
    expect(pending.size).toBe(sealed.size)
  })

  it('before the first flashblock: the head state root and empty tries', async () => {
    const latest = await t.rpc<BlockJSON>('eth_getBlockByNumber', ['latest', false])
    const pending = await t.rpc<BlockJSON>('eth_getBlockByNumber', ['pending', false])
    const emptyTrie = await orderedRoot([])
    expect(pending).toMatchObject({
      number: toHex(BigInt(latest.number) + 1n),
      parentHash: latest.hash,
      stateRoot: latest.stateRoot,
      transactionsRoot: emptyTrie,
      receiptsRoot: emptyTrie,
      logsBloom: `0x${'00'.repeat(256)}`,
      gasUsed: '0x0',
      transactions: [],
    })
    expect(pending.hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await t.rpc('eth_getBlockByHash', [pending.hash, false])).toEqual(pending)
  })
})

describe('pre-confirmed answers carry the block hash as built so far', () => {
  it('receipt, transaction and logs name the flashblock’s block; eth_getBlockByHash answers it until the seal', async () => {
    const hash = await setStoreValue(t, store, 4, 9n)
    await t.preconfirm()
    const asOfFirst = await t.rpc<BlockJSON>('eth_getBlockByNumber', ['pending', false])
    const receipt = await t.rpc<ReceiptJSON>('eth_getTransactionReceipt', [hash])
    expect(receipt).toMatchObject({ blockHash: asOfFirst.hash, blockNumber: asOfFirst.number, transactionIndex: '0x0' })
    expect(receipt.logs.map((entry) => entry.blockHash)).toEqual([asOfFirst.hash])
    expect(await t.rpc('eth_getTransactionByHash', [hash])).toMatchObject({ blockHash: asOfFirst.hash, blockNumber: asOfFirst.number })
    const logs = await t.rpc<{ blockHash: Hex; transactionHash: Hex }[]>('eth_getLogs', [
      { fromBlock: 'pending', toBlock: 'pending', topics: [VALUE_SET] },
    ])
    expect(logs.map((entry) => [entry.transactionHash, entry.blockHash])).toEqual([[hash, asOfFirst.hash]])

    // A second flashblock moves the hash on; the first one's still names the block as it was then.
    const later = await setStoreValue(t, store, 5, 10n)
    await t.preconfirm()
    const asOfSecond = await t.rpc<BlockJSON>('eth_getBlockByNumber', ['pending', false])
    expect(asOfSecond.hash).not.toBe(asOfFirst.hash)
    expect(asOfSecond.transactions).toEqual([hash, later])
    expect((await t.rpc<ReceiptJSON>('eth_getTransactionReceipt', [hash])).blockHash).toBe(asOfSecond.hash)
    expect(await t.rpc('eth_getBlockByHash', [asOfFirst.hash, false])).toEqual(asOfFirst)
    expect(await t.rpc('eth_getBlockByHash', [asOfSecond.hash, false])).toEqual(asOfSecond)
    // eth_call runs on an execution worker, which rebuilds that flashblock's state.
    const valueCall = { to: store, data: encodeFunctionData({ abi: Store.abi, functionName: 'value' }) }
    expect(await t.rpc<Hex>('eth_call', [valueCall, { blockHash: asOfFirst.hash }])).toBe(`0x${9n.toString(16).padStart(64, '0')}`)
    expect(await t.rpc<Hex>('eth_call', [valueCall, { blockHash: asOfSecond.hash }])).toBe(`0x${10n.toString(16).padStart(64, '0')}`)
    expect(await t.rpc<Hex>('eth_getStorageAt', [store, '0x0', { blockHash: asOfFirst.hash }])).toBe(`0x${9n.toString(16).padStart(64, '0')}`)

    // Sealed: the last flashblock's hash is the block's; the superseded one names nothing any more.
    const number = await t.mine()
    const sealed = await t.rpc<BlockJSON>('eth_getBlockByNumber', [toHex(number), false])
    expect(sealed.hash).toBe(asOfSecond.hash)
    expect(await t.rpc('eth_getBlockByHash', [asOfFirst.hash, false])).toBeNull()
    expect((await t.rpc<ReceiptJSON>('eth_getTransactionReceipt', [hash])).blockHash).toBe(sealed.hash)
    expect(keccak256(await t.rpc<Hex>('debug_getRawHeader', [sealed.hash]))).toBe(sealed.hash)
  })
})

describe('receipts carry their block’s timestamp', () => {
  it('pre-confirmed, sealed, by block, in wallet_getCallsStatus, and on their logs, as hex', async () => {
    const hash = await setStoreValue(t, store, 6, 11n)
    await t.preconfirm()
    const pending = await t.rpc<BlockJSON>('eth_getBlockByNumber', ['pending', false])
    const preconfirmed = await t.rpc<ReceiptJSON>('eth_getTransactionReceipt', [hash])
    expect(preconfirmed.blockTimestamp).toBe(pending.timestamp)
    expect(preconfirmed.logs.map((entry) => entry.blockTimestamp)).toEqual([pending.timestamp])
    // Only a blob transaction's receipt has blobGasUsed and blobGasPrice, as geth's.
    expect(Object.keys(preconfirmed).filter((key) => key.startsWith('blob'))).toEqual([])

    const number = await t.mine()
    const sealed = await t.rpc<BlockJSON>('eth_getBlockByNumber', [toHex(number), false])
    const receipt = await t.rpc<ReceiptJSON>('eth_getTransactionReceipt', [hash])
    expect(receipt.blockTimestamp).toBe(sealed.timestamp)
    expect(await t.rpc('eth_getBlockReceipts', [toHex(number)])).toEqual([receipt])

    const { id } = await t.rpc<{ id: string }>('wallet_sendCalls', [
      {
        version: '2.0.0',
        from: t.accounts[0]!.address,
        chainId: toHex(31337),
        atomicRequired: false,
        calls: [{ to: t.accounts[1]!.address, value: '0x1' }],
      },
    ])
    await t.mine()
    const status = await t.rpc<{ receipts: { blockHash: Hex; blockTimestamp: Hex }[] }>('wallet_getCallsStatus', [id])
    const block = await t.rpc<BlockJSON>('eth_getBlockByHash', [status.receipts[0]!.blockHash, false])
    expect(status.receipts.map((entry) => entry.blockTimestamp)).toEqual([block.timestamp])
  })
})
