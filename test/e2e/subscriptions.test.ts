/**
 * eth_subscribe over WebSocket, kind by kind, each notification checked field by field against what the ordinary
 * methods answer at the same moment (manual mining, so nothing moves between the two).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { pad, toHex as viemToHex } from 'viem'

import { Store } from './fixtures/contracts.ts'
import { VALUE_SET, deploy, setStoreValue, startChain } from './helpers.ts'
import { connect, wsUrl } from './wsHelpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'
import type { WsClient } from './wsHelpers.ts'

let t: TestChain
let client: WsClient
let store: Hex

beforeAll(async () => {
  t = await startChain()
  store = (await deploy(t, Store, [1n])).address
  await t.mine()
  client = await connect(wsUrl(t.url))
})

afterAll(async () => {
  await client?.close()
  await t?.close()
})

type Json = Record<string, unknown>

const setValue = (from: number, value: bigint) => setStoreValue(t, store, from, value)

/** Notifications of a subscription until `done` says enough; bounded by `limit` messages. */
async function collect<T>(subscription: string, count: number): Promise<T[]> {
  const results: T[] = []
  for (let i = 0; i < count; i++) results.push(await client.notification<T>(subscription))
  return results
}

async function expectNoMoreNotifications(subscription: string): Promise<void> {
  await expect(client.notification(subscription, 150)).rejects.toThrow('no matching message')
}

describe('geth kinds', () => {
  it('newHeads: one header per sealed block, the fields of eth_getBlockByNumber without the body', async () => {
    const subscription = await client.subscribe(['newHeads'])
    expect(subscription).toMatch(/^0x[0-9a-f]{32}$/)
    await setValue(1, 7n)
    await t.mine()
    await t.mine()
    const heads = await collect<Json>(subscription, 2)
    for (const head of heads) {
      const { transactions, uncles, size, withdrawals, ...header } = (await t.rpc<Json>('eth_getBlockByNumber', [head.number, false])) as Json
      expect(transactions).toBeDefined()
      expect(head).toEqual(header)
    }
    expect(heads.map((head) => BigInt(head.number as Hex))).toEqual([(await t.blockNumber()) - 1n, await t.blockNumber()])
    expect(await client.rpc('eth_unsubscribe', [subscription])).toBe(true)
    await t.mine()
    await expectNoMoreNotifications(subscription)
  })

  it('logs {address, topics}: the matching logs of each sealed block, in order, as eth_getLogs answers them', async () => {
    const by = pad(t.accounts[2]!.address.toLowerCase() as Hex)
    const subscription = await client.subscribe(['logs', { address: store, topics: [VALUE_SET, null, by] }])
    const everything = await client.subscribe(['logs'])
    await setValue(2, 10n)
    await setValue(3, 11n) // another sender: not for the filtered subscription
    await setValue(2, 12n)
    await t.preconfirm()
    // Pre-confirmed logs are not sealed logs.
    await expectNoMoreNotifications(subscription)
    const number = await t.mine()

    const filtered = await collect<Json>(subscription, 2)
    const expected = await t.rpc<Json[]>('eth_getLogs', [
      { fromBlock: viemToHex(number), toBlock: viemToHex(number), address: store, topics: [VALUE_SET, null, by] },
    ])
    expect(expected).toHaveLength(2)
    expect(filtered).toEqual(expected)
    expect(filtered.every((entry) => entry.removed === false && entry.blockHash !== null)).toBe(true)

    const all = await collect<Json>(everything, 3)
    expect(all).toEqual(await t.rpc<Json[]>('eth_getLogs', [{ fromBlock: viemToHex(number), toBlock: viemToHex(number) }]))
    await expectNoMoreNotifications(subscription)
    await client.rpc('eth_unsubscribe', [subscription])
    await client.rpc('eth_unsubscribe', [everything])
  })

  it('newPendingTransactions: the hash of each transaction entering the pool; with true, the transaction', async () => {
    const hashes = await client.subscribe(['newPendingTransactions'])
    const full = await client.subscribe(['newPendingTransactions', true])
    const hash = await setValue(4, 20n)
    expect(await client.notification(hashes)).toBe(hash)
    // Still in the pool: eth_getTransactionByHash answers it without a block.
    expect(await client.notification(full)).toEqual(await t.rpc('eth_getTransactionByHash', [hash]))
    await client.rpc('eth_unsubscribe', [hashes])
    await client.rpc('eth_unsubscribe', [full])
    await t.mine()
  })
})

describe("Base's flashblock kinds", () => {
  it('newFlashblocks: after each flashblock, the pending block as eth_getBlockByNumber("pending", true) answers it', async () => {
    const subscription = await client.subscribe(['newFlashblocks'])
    const first = await setValue(5, 30n)
    // The block starts with flashblock 0 (system calls only), then this flashblock takes the transaction.
    await t.preconfirm()
    const [start, withFirst] = await collect<Json>(subscription, 2)
    expect(start!.transactions).toEqual([])
    expect(withFirst).toEqual(await t.rpc('eth_getBlockByNumber', ['pending', true]))
    expect((withFirst!.transactions as Json[]).map((tx) => tx.hash)).toEqual([first])

    const second = await setValue(6, 31n)
    await t.preconfirm()
    const [next] = await collect<Json>(subscription, 1)
    expect(next).toEqual(await t.rpc('eth_getBlockByNumber', ['pending', true]))
    expect((next!.transactions as Json[]).map((tx) => tx.hash)).toEqual([first, second])
    expect(next!.number).toBe(withFirst!.number)
    await client.rpc('eth_unsubscribe', [subscription])
    await t.mine()
  })

  it('pendingLogs {address, topics}: one message per log of each pre-confirmed transaction, as eth_getLogs to pending', async () => {
    const by = pad(t.accounts[7]!.address.toLowerCase() as Hex)
    const subscription = await client.subscribe(['pendingLogs', { address: [store], topics: [[VALUE_SET], null, by] }])
    await setValue(7, 40n)
    await setValue(8, 41n)
    await t.preconfirm()
    const [log] = await collect<Json>(subscription, 1)
    const pendingLogs = await t.rpc<Json[]>('eth_getLogs', [
      { fromBlock: 'pending', toBlock: 'pending', address: store, topics: [VALUE_SET, null, by] },
    ])
    expect(pendingLogs).toHaveLength(1)
    expect(log).toEqual(pendingLogs[0])
    expect(log!.blockHash).toBe((await t.rpc<Json>('eth_getBlockByNumber', ['pending', false])).hash)
    await expectNoMoreNotifications(subscription)

    // The same logs once sealed are not sent again.
    await t.mine()
    await expectNoMoreNotifications(subscription)
    await client.rpc('eth_unsubscribe', [subscription])
  })

  it('newFlashblockTransactions: each pre-confirmed hash; with true, the transaction with its receipt fields', async () => {
    const hashes = await client.subscribe(['newFlashblockTransactions'])
    const full = await client.subscribe(['newFlashblockTransactions', true])
    const sent = [await setValue(1, 50n), await setValue(2, 51n)]
    await t.preconfirm()
    expect(await collect(hashes, 2)).toEqual(sent)
    const objects = await collect<Json>(full, 2)
    const { hash: blockHash } = await t.rpc<Json>('eth_getBlockByNumber', ['pending', false])
    for (const [i, object] of objects.entries()) {
      const transaction = await t.rpc<Json>('eth_getTransactionByHash', [sent[i]])
      const receipt = await t.rpc<Json>('eth_getTransactionReceipt', [sent[i]])
      expect(object).toEqual({ ...transaction, ...receipt })
      expect(object).toMatchObject({ blockHash, status: '0x1', hash: sent[i], transactionHash: sent[i] })
      expect((object.logs as Json[]).length).toBe(1)
    }
    // A flashblock without transactions sends nothing.
    await t.preconfirm()
    await expectNoMoreNotifications(hashes)
    await client.rpc('eth_unsubscribe', [hashes])
    await client.rpc('eth_unsubscribe', [full])
    await t.mine()
  })
})

describe('errors', () => {
  it('answers as geth: unknown kind -32601, bad options -32602, unknown id -32000, and no notifications over HTTP', async () => {
    expect((await client.request('eth_subscribe', ['newBlocks'])).error).toEqual({
      code: -32601,
      message: 'no "newBlocks" subscription in eth namespace',
    })
    expect((await client.request('eth_subscribe', ['logs', { address: '0x12' }])).error).toMatchObject({ code: -32602 })
    expect((await client.request('eth_subscribe', ['logs', { address: '0x12' }])).error?.message).toMatch(/^invalid argument 1: address: /)
    expect((await client.request('eth_subscribe', ['newHeads', true])).error).toMatchObject({ code: -32602 })
    expect((await client.request('eth_subscribe', ['newPendingTransactions', 'yes'])).error).toMatchObject({ code: -32602 })
    expect((await client.request('eth_unsubscribe', ['0x1234'])).error).toEqual({ code: -32000, message: 'subscription not found' })
    expect(await t.rpcError('eth_subscribe', ['newHeads'])).toEqual({ code: -32601, message: 'notifications not supported' })
    expect(await t.rpcError('eth_unsubscribe', ['0x1234'])).toEqual({ code: -32601, message: 'notifications not supported' })
  })

  it('a subscription belongs to its connection: another cannot end it, and it ends with its connection', async () => {
    const other = await connect(wsUrl(t.url))
    const subscription = await other.subscribe(['newHeads'])
    expect((await client.request('eth_unsubscribe', [subscription])).error).toEqual({ code: -32000, message: 'subscription not found' })
    await other.close()
    // Nothing is left listening for the closed connection: the chain goes on without errors.
    await t.mine()
    expect(await client.rpc('eth_chainId')).toBe('0x7a69')
  })
})
