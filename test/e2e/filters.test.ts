/**
 * Polled filters as geth has them, over HTTP and WebSocket alike: what each kind gathers between polls, checked
 * against the ordinary methods, and the errors for ids that do not exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createPublicClient, http, pad, toHex as viemToHex } from 'viem'

import { parseCommandLine } from '../../src/cli.ts'
import { Store } from './fixtures/contracts.ts'
import { VALUE_SET, deploy, setStoreValue, startChain } from './helpers.ts'
import { connect, wsUrl } from './wsHelpers.ts'

import type { Hex, Log } from 'viem'
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

const setValue = (from: number, value: bigint) => setStoreValue(t, store, from, value)

/** Events are handed to filters on the turn after the change; a poll right after a request may come first. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20))

describe('filters', () => {
  it('eth_newBlockFilter: the hashes of the blocks sealed since the last poll', async () => {
    const id = await t.rpc<Hex>('eth_newBlockFilter')
    expect(id).toMatch(/^0x[0-9a-f]{32}$/)
    expect(await t.rpc('eth_getFilterChanges', [id])).toEqual([])
    const first = await t.mine()
    const second = await t.mine()
    await settle()
    const hashes = [
      (await t.rpc<Json>('eth_getBlockByNumber', [viemToHex(first), false])).hash,
      (await t.rpc<Json>('eth_getBlockByNumber', [viemToHex(second), false])).hash,
    ]
    expect(await t.rpc('eth_getFilterChanges', [id])).toEqual(hashes)
    expect(await t.rpc('eth_getFilterChanges', [id])).toEqual([])
    expect(await t.rpc('eth_uninstallFilter', [id])).toBe(true)
  })

  it('eth_newPendingTransactionFilter: transactions entering the pool, as hashes or (true) in full', async () => {
    const hashes = await t.rpc<Hex>('eth_newPendingTransactionFilter')
    const full = await t.rpc<Hex>('eth_newPendingTransactionFilter', [true])
    const sent = [await setValue(1, 2n), await setValue(1, 3n)]
    await settle()
    expect(await t.rpc('eth_getFilterChanges', [hashes])).toEqual(sent)
    const transactions = await t.rpc<Json[]>('eth_getFilterChanges', [full])
    expect(transactions).toEqual([await t.rpc('eth_getTransactionByHash', [sent[0]]), await t.rpc('eth_getTransactionByHash', [sent[1]])])
    await t.mine()
    await t.rpc('eth_uninstallFilter', [hashes])
    await t.rpc('eth_uninstallFilter', [full])
  })

  it('eth_newFilter: the matching logs of each block sealed since the last poll, as eth_getLogs answers them', async () => {
    const by = pad(t.accounts[2]!.address.toLowerCase() as Hex)
    const query = { address: store, topics: [VALUE_SET, null, by] }
    const id = await t.rpc<Hex>('eth_newFilter', [query])
    await setValue(2, 10n)
    await setValue(3, 11n)
    await t.preconfirm()
    await settle()
    // Pre-confirmed logs wait for their seal.
    expect(await t.rpc('eth_getFilterChanges', [id])).toEqual([])
    const first = await t.mine()
    await setValue(2, 12n)
    const second = await t.mine()
    await settle()
    const changes = await t.rpc<Json[]>('eth_getFilterChanges', [id])
    expect(changes).toHaveLength(2)
    expect(changes).toEqual(await t.rpc('eth_getLogs', [{ ...query, fromBlock: viemToHex(first), toBlock: viemToHex(second) }]))
    expect(await t.rpc('eth_getFilterChanges', [id])).toEqual([])
    // eth_getFilterLogs runs the query itself: from latest to latest now.
    expect(await t.rpc('eth_getFilterLogs', [id])).toEqual(await t.rpc('eth_getLogs', [query]))
    await t.rpc('eth_uninstallFilter', [id])
  })

  it('eth_newFilter with block numbers gathers only within them; eth_getFilterLogs answers the range', async () => {
    const head = await t.blockNumber()
    const id = await t.rpc<Hex>('eth_newFilter', [{ fromBlock: viemToHex(head + 1n), toBlock: viemToHex(head + 1n), address: store }])
    await setValue(4, 20n)
    await t.mine()
    await setValue(4, 21n)
    await t.mine()
    await settle()
    const changes = await t.rpc<Json[]>('eth_getFilterChanges', [id])
    expect(changes.map((log) => log.blockNumber)).toEqual([viemToHex(head + 1n)])
    expect(await t.rpc('eth_getFilterLogs', [id])).toEqual(changes)
    await t.rpc('eth_uninstallFilter', [id])
  })

  it('is shared between HTTP and WebSocket', async () => {
    const client = await connect(wsUrl(t.url))
    const id = await client.rpc<Hex>('eth_newBlockFilter')
    const number = await t.mine()
    await settle()
    expect(await t.rpc('eth_getFilterChanges', [id])).toEqual([(await t.rpc<Json>('eth_getBlockByNumber', [viemToHex(number), false])).hash])
    expect(await client.rpc('eth_uninstallFilter', [id])).toBe(true)
    await client.close()
  })

  it('errors as geth: an unknown id is -32000 "filter not found"; uninstalling twice answers false', async () => {
    const unknown = '0x0123456789abcdef0123456789abcdef'
    expect(await t.rpcError('eth_getFilterChanges', [unknown])).toEqual({ code: -32000, message: 'filter not found' })
    expect(await t.rpcError('eth_getFilterLogs', [unknown])).toEqual({ code: -32000, message: 'filter not found' })
    expect(await t.rpc('eth_uninstallFilter', [unknown])).toBe(false)
    const blocks = await t.rpc<Hex>('eth_newBlockFilter')
    // Only a log filter has logs to run.
    expect(await t.rpcError('eth_getFilterLogs', [blocks])).toEqual({ code: -32000, message: 'filter not found' })
    expect(await t.rpc('eth_uninstallFilter', [blocks])).toBe(true)
    expect(await t.rpc('eth_uninstallFilter', [blocks])).toBe(false)
    expect(await t.rpcError('eth_getFilterChanges', [blocks])).toEqual({ code: -32000, message: 'filter not found' })
    expect(await t.rpcError('eth_newFilter', [{ fromBlock: '0x5', toBlock: '0x4' }])).toEqual({ code: -32602, message: 'invalid block range params' })
    expect((await t.rpcError('eth_newFilter', [{ address: '0x12' }])).code).toBe(-32602)
    expect((await t.rpcError('eth_getFilterChanges', ['nope'])).code).toBe(-32602)
  })
})

describe('caps on filters', () => {
  let capped: TestChain
  beforeAll(async () => {
    capped = await startChain({ maxFilters: 4, maxFiltersPerOrigin: 2 })
  })
  afterAll(async () => {
    await capped?.close()
  })

  /** One request as a page of `origin` sends it (no Origin header for undefined). */
  async function fromOrigin(origin: string | undefined, method: string, params: unknown[] = []): Promise<{ result?: unknown; error?: unknown }> {
    const response = await fetch(capped.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(origin === undefined ? {} : { Origin: origin }) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    return (await response.json()) as { result?: unknown; error?: unknown }
  }

  it('the filter over the cap per origin and the one over the cap in all get -32005; uninstalling frees a place', async () => {
    const page = 'http://localhost:5173'
    const first = await fromOrigin(page, 'eth_newBlockFilter')
    expect(first.result).toMatch(/^0x[0-9a-f]{32}$/)
    expect((await fromOrigin(page, 'eth_newFilter', [{}])).result).toMatch(/^0x[0-9a-f]{32}$/)
    expect(await fromOrigin(page, 'eth_newPendingTransactionFilter')).toMatchObject({
      error: { code: -32005, message: 'too many filters: 2 per origin (http://localhost:5173); eth_uninstallFilter frees one' },
    })
    // Another origin's cap is its own, and callers without an Origin count as one more.
    expect((await fromOrigin('http://other.localhost', 'eth_newBlockFilter')).result).toMatch(/^0x/)
    const owner = await fromOrigin(undefined, 'eth_newBlockFilter')
    expect(owner.result).toMatch(/^0x/)
    expect(await fromOrigin('http://third.localhost', 'eth_newBlockFilter')).toMatchObject({
      error: { code: -32005, message: 'too many filters: 4 in all; eth_uninstallFilter frees one' },
    })
    // A place freed in all goes to whoever asks next; the page's own place frees only with one of its filters.
    expect((await fromOrigin(undefined, 'eth_uninstallFilter', [owner.result])).result).toBe(true)
    expect(await fromOrigin(page, 'eth_newBlockFilter')).toMatchObject({ error: { code: -32005 } })
    expect((await fromOrigin('http://third.localhost', 'eth_newBlockFilter')).result).toMatch(/^0x/)
    expect((await fromOrigin(page, 'eth_uninstallFilter', [first.result])).result).toBe(true)
    expect((await fromOrigin(page, 'eth_newBlockFilter')).result).toMatch(/^0x/)
  })
})

describe('the command line', () => {
  it('--max-filters and --max-filters-per-origin set the caps', () => {
    expect(parseCommandLine(['--max-filters', '50', '--max-filters-per-origin', '5'])).toMatchObject({ maxFilters: 50, maxFiltersPerOrigin: 5 })
    expect(parseCommandLine([])).toMatchObject({ maxFilters: undefined, maxFiltersPerOrigin: undefined })
  })
})

describe('eth_getLogs with pending', () => {
  it('toBlock "pending" adds the logs of pre-confirmed transactions after the sealed ones; latest leaves them out', async () => {
    const sealedHash = await setValue(1, 60n)
    const sealed = await t.mine()
    const first = await setValue(2, 61n)
    const second = await setValue(3, 62n)
    await t.preconfirm()
    const query = { fromBlock: viemToHex(sealed), address: store, topics: [VALUE_SET] }
    const withPending = await t.rpc<Json[]>('eth_getLogs', [{ ...query, toBlock: 'pending' }])
    expect(withPending.map((log) => log.transactionHash)).toEqual([sealedHash, first, second])
    const [, a, b] = withPending
    // Their block's hash as of the newest flashblock, as the pending block has it.
    const { hash: blockHash } = await t.rpc<{ hash: Hex }>('eth_getBlockByNumber', ['pending', false])
    expect(a).toMatchObject({ blockHash, blockNumber: viemToHex(sealed + 1n), transactionIndex: '0x0', logIndex: '0x0', removed: false })
    expect(b).toMatchObject({ blockHash, blockNumber: viemToHex(sealed + 1n), transactionIndex: '0x1', logIndex: '0x1' })
    // The same log as the pre-confirmed receipt carries.
    expect((await t.rpc<Json>('eth_getTransactionReceipt', [first])).logs).toEqual([a])
    expect((await t.rpc<Json[]>('eth_getLogs', [{ ...query, toBlock: 'latest' }])).map((log) => log.transactionHash)).toEqual([sealedHash])
    // Only the pending block.
    expect((await t.rpc<Json[]>('eth_getLogs', [{ ...query, fromBlock: 'pending', toBlock: 'pending' }])).map((log) => log.transactionHash)).toEqual([
      first,
      second,
    ])
    await t.mine()
  })
})

describe('viem over HTTP', () => {
  it('watchContractEvent polls through eth_newFilter and eth_getFilterChanges', async () => {
    const requests: string[] = []
    const client = createPublicClient({
      chain: t.chain,
      transport: http(t.url, {
        onFetchRequest: async (request) => {
          requests.push(((await request.clone().json()) as { method: string }).method)
        },
      }),
      pollingInterval: 25,
    })
    const logs: Log[] = []
    const unwatch = client.watchContractEvent({ address: store, abi: Store.abi, eventName: 'ValueSet', onLogs: (batch) => logs.push(...batch) })
    try {
      // The first poll after eth_newFilter means the filter is installed.
      for (let waited = 0; !requests.includes('eth_getFilterChanges') && waited < 20_000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10))
      expect(requests[0]).toBe('eth_newFilter')
      const sent = [await setValue(5, 100n), await setValue(6, 101n)]
      await t.mine()
      for (let waited = 0; logs.length < 2 && waited < 20_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(logs.map((log) => log.transactionHash)).toEqual(sent)
      expect(logs.map((log) => (log as unknown as { args: { value: bigint } }).args.value)).toEqual([100n, 101n])
      expect(requests).not.toContain('eth_getLogs')
    } finally {
      unwatch()
    }
  })
})
