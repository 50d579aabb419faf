/**
 * Fork mode's upstream state source (src/chain/fork/, docs/fork.md) against real upstreams on loopback: anvil and
 * another flashchain, each seeded, with state changed after the fork block. A counting proxy in front of the
 * upstream counts the HTTP requests and the calls in them, and plays the upstream's failures.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { createPublicClient, encodeFunctionData, http, parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

import { UpstreamError } from '../../src/chain/errors.ts'
import { openForkCache } from '../../src/chain/fork/cache.ts'
import { createUpstreamTransport } from '../../src/chain/fork/transport.ts'
import { createUpstreamState, pinForkBlock } from '../../src/chain/fork/upstream.ts'
import { Store } from '../e2e/fixtures/contracts.ts'
import { startChain } from '../e2e/helpers.ts'
import { holder, seed, startProxy } from './forkUpstream.ts'
import { startAnvil } from './tools.ts'

import type { Hex } from 'viem'
import type { UpstreamTransportOptions } from '../../src/chain/fork/transport.ts'
import type { ForkBlock } from '../../src/chain/fork/upstream.ts'
import type { CountingProxy, Seeded, Upstream } from './forkUpstream.ts'

function source(url: string, fork: ForkBlock, options: Omit<UpstreamTransportOptions, 'url'> = {}) {
  return createUpstreamState({ transport: createUpstreamTransport({ url, ...options }), fork })
}

const slot = (index: number): Hex => `0x${index.toString(16)}`
const word = (index: number): Hex => `0x${index.toString(16).padStart(64, '0')}`

describe.each(['anvil', 'flashchain'] as const)('the upstream state source, forking %s', (kind) => {
  let upstream: Upstream
  let seeded: Seeded
  const proxies: CountingProxy[] = []
  const proxy = async (behaviour?: Parameters<typeof startProxy>[1]) => {
    const started = await startProxy(upstream.url, behaviour)
    proxies.push(started)
    return started
  }

  beforeAll(async () => {
    upstream = kind === 'anvil' ? await startAnvil('auto') : await startChain()
    seeded = await seed(upstream.url)
  })
  afterAll(async () => {
    await Promise.all(proxies.map((started) => started.close()))
    await upstream?.close()
  })

  test('answers the upstream’s values at the fork block, not later ones', async () => {
    const { fork, store } = seeded
    const client = createPublicClient({ transport: http(upstream.url, { retryCount: 0 }) })
    const at = { blockNumber: fork.number }
    const state = source(upstream.url, fork)
    const [holderAccount, storeAccount, senderAccount, stranger, value, empty] = await Promise.all([
      state.account(holder),
      state.account(store),
      state.account(seeded.sender),
      state.account('0x000000000000000000000000000000000000dead'),
      state.storage(store, slot(0)),
      state.storage(store, slot(5)),
    ])
    expect(holderAccount).toEqual({ balance: parseEther('1'), nonce: 0n, code: '0x' })
    expect(storeAccount).toEqual({ balance: 0n, nonce: 1n, code: Store.deployedBytecode })
    expect(stranger).toEqual({ balance: 0n, nonce: 0n, code: '0x' })
    expect(value).toBe(7n)
    expect(empty).toBe(0n)
    // Exactly the upstream's own answers at that block…
    expect(senderAccount).toEqual({
      balance: await client.getBalance({ address: seeded.sender, ...at }),
      nonce: BigInt(await client.getTransactionCount({ address: seeded.sender, ...at })),
      code: '0x',
    })
    expect(value).toBe(BigInt((await client.getStorageAt({ address: store, slot: slot(0), ...at }))!))
    // …which the blocks after it changed.
    expect(await client.getBalance({ address: holder })).toBe(parseEther('3'))
    expect(BigInt((await client.getStorageAt({ address: store, slot: slot(0) }))!)).toBe(42n)
  })

  test('pins the upstream’s latest block when given no number', async () => {
    const client = createPublicClient({ transport: http(upstream.url, { retryCount: 0 }) })
    const latest = await client.getBlock({ blockTag: 'latest' })
    expect(await pinForkBlock(createUpstreamTransport({ url: upstream.url }))).toMatchObject({
      chainId: BigInt(await client.getChainId()),
      number: latest.number,
      hash: latest.hash,
    })
  })

  test('concurrent reads of one key share one call', async () => {
    const counting = await proxy()
    const state = source(counting.url, seeded.fork)
    const values = await Promise.all(Array.from({ length: 10 }, () => state.storage(seeded.store, slot(0))))
    expect(values).toEqual(Array(10).fill(7n))
    expect(counting.requests.length).toBe(1)
    expect(counting.calls()).toBe(1)

    const accounts = await Promise.all(Array.from({ length: 10 }, () => state.account(holder)))
    expect(new Set(accounts.map((account) => account.balance))).toEqual(new Set([parseEther('1')]))
    // An account is its balance, nonce and code: three calls, one request.
    expect(counting.requests.length).toBe(2)
    expect(counting.calls()).toBe(4)
  })

  test('the misses of one tick go out as one batch, split at the batch size', async () => {
    const counting = await proxy()
    const values = await Promise.all(Array.from({ length: 20 }, (_, index) => source(counting.url, seeded.fork).storage(seeded.store, slot(index))))
    expect(values).toEqual([7n, ...Array(19).fill(0n)])
    expect(counting.requests.length).toBe(20)

    const batching = await proxy()
    const state = source(batching.url, seeded.fork)
    expect(await Promise.all(Array.from({ length: 20 }, (_, index) => state.storage(seeded.store, slot(index))))).toEqual(values)
    expect(batching.requests.map((body) => (body as unknown[]).length)).toEqual([20])

    const capped = await proxy()
    const small = source(capped.url, seeded.fork, { maxBatchSize: 8 })
    expect(await Promise.all(Array.from({ length: 20 }, (_, index) => small.storage(seeded.store, slot(index))))).toEqual(values)
    expect(capped.requests.map((body) => (body as unknown[]).length)).toEqual([8, 8, 4])
  })

  test('an upstream that takes no block hash (EIP-1898) is read by the fork block’s number, once that block is the one pinned', async () => {
    const older = await proxy(() => 'noBlockHash')
    const state = source(older.url, seeded.fork)
    expect(await state.storage(seeded.store, slot(0))).toBe(7n)
    expect(await state.account(holder)).toEqual({ balance: parseEther('1'), nonce: 0n, code: '0x' })
    const number = `0x${seeded.fork.number.toString(16)}`
    const calls = older.requests.flatMap((body) => (Array.isArray(body) ? body : [body])) as { method: string; params: unknown[] }[]
    // The refused read, the block by its number (still the pinned one), the read again by number, and by number since.
    expect(calls.map((call) => [call.method, call.params.at(-1)])).toEqual([
      ['eth_getStorageAt', { blockHash: seeded.fork.hash }],
      ['eth_getBlockByNumber', false],
      ['eth_getStorageAt', number],
      ['eth_getBalance', number],
      ['eth_getTransactionCount', number],
      ['eth_getCode', number],
    ])

    // The block of that number is another than the one pinned: no read answers for it.
    const other = `0x${'12'.repeat(32)}` as Hex
    const moved = source(older.url, { ...seeded.fork, hash: other })
    await expect(moved.storage(seeded.store, slot(1))).rejects.toThrow(
      `failed eth_getStorageAt ${seeded.store.toLowerCase()} ${`0x${'0'.repeat(63)}1`} at block ${seeded.fork.number}: it takes no block hash (EIP-1898), and its block ${seeded.fork.number} is no longer ${other}`,
    )
  })

  test('a call’s trace at the fork block brings what it reads there, less what the run’s overrides set', async () => {
    const counting = await proxy()
    const { fork, store, sender } = seeded
    const state = source(counting.url, fork)
    const set = encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [9n] })
    const traced = await state.prestate({ from: sender, to: store, data: set })
    // The store's code and its slot as they were at the fork block (7; 42 came after), and the sender's account.
    expect(traced.accounts).toContainEqual([store, { balance: 0n, nonce: 1n, code: Store.deployedBytecode.toLowerCase() }])
    expect(traced.accounts.find(([address]) => address === sender)?.[1]).toEqual(await state.account(sender))
    expect(traced.slots).toEqual([[store, word(0), 7n]])
    // The same call again is the same answer: the upstream is not asked twice.
    expect(await state.prestate({ from: sender, to: store, data: set })).toEqual(traced)
    expect(counting.requests.filter((body) => (body as { method?: string }).method === 'debug_traceCall').length).toBe(1)
    const request = counting.requests[0]
    expect(request).toMatchObject({ method: 'debug_traceCall', params: [{ to: store }, { blockHash: fork.hash }, { tracer: 'prestateTracer' }] })

    // What the overrides set is the run's, not the upstream's: the slot and the overridden account are left out.
    const overrides = { [store]: { stateDiff: { [word(0)]: word(3) } }, [sender]: { balance: '0x1' as Hex, nonce: '0x0' as Hex } }
    const overridden = await state.prestate({ from: sender, to: store, data: set, overrides })
    expect(overridden.slots).toEqual([])
    expect(overridden.accounts.map(([address]) => address)).toContain(store)
    expect(overridden.accounts.map(([address]) => address)).not.toContain(sender)
  })

  test('an upstream that has no trace is asked for one once; a call it cannot run stops nothing', async () => {
    const refusing = await proxy(() => 'noTraces')
    const state = source(refusing.url, seeded.fork)
    const call = { from: seeded.sender, to: seeded.store, data: '0x3fa4f245' as Hex }
    await expect(state.prestate(call)).rejects.toThrow(/debug_traceCall.*-32601/)
    expect(await state.prestate(call)).toEqual({ accounts: [], slots: [] })
    expect(refusing.requests.length).toBe(1)

    // Without the tracer (invalid params): no trace again, and the reads still name the fork block by its hash.
    const noTracer = await proxy(() => 'noTracer')
    const pinned = source(noTracer.url, seeded.fork)
    await expect(pinned.prestate(call)).rejects.toThrow(/-32602/)
    expect(await pinned.storage(seeded.store, slot(0))).toBe(7n)
    expect(noTracer.requests.map((body) => (body as { params: unknown[] }).params.at(-1))).toEqual([
      { tracer: 'prestateTracer' },
      { blockHash: seeded.fork.hash },
    ])

    const counting = await proxy()
    const tracing = source(counting.url, seeded.fork)
    // More value than the sender had there: the upstream cannot run it, and says so for this call alone.
    await expect(tracing.prestate({ ...call, value: parseEther('1000000000') })).rejects.toThrow(UpstreamError)
    expect((await tracing.prestate(call)).slots).toEqual([[seeded.store, word(0), 7n]])
    expect(counting.requests.length).toBe(2)
  })

  test('an upstream that refuses batches gets the calls one by one', async () => {
    const refusing = await proxy(() => 'noBatches')
    const state = source(refusing.url, seeded.fork)
    expect(await Promise.all([0, 1, 2].map((index) => state.storage(seeded.store, slot(index))))).toEqual([7n, 0n, 0n])
    // The refused batch, then each call alone; and alone from then on.
    expect(refusing.requests.length).toBe(4)
    await state.account(holder)
    expect(refusing.requests.length).toBe(7)
    expect(refusing.requests.slice(1).every((body) => !Array.isArray(body))).toBe(true)
  })
})

describe('the fork cache', () => {
  let upstream: Upstream
  let seeded: Seeded
  let counting: CountingProxy
  const dir = mkdtempSync(join(tmpdir(), 'flashchain-fork-cache-'))

  beforeAll(async () => {
    upstream = await startAnvil('auto')
    seeded = await seed(upstream.url)
    counting = await startProxy(upstream.url)
  })
  afterAll(async () => {
    await counting?.close()
    await upstream?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const cached = (path: string, fork = seeded.fork) => {
    const cache = openForkCache({ path, fork, endpoint: counting.url })
    return { cache, state: createUpstreamState({ transport: createUpstreamTransport({ url: counting.url }), fork, cache }) }
  }
  const readAll = (state: ReturnType<typeof cached>['state']) =>
    Promise.all([state.account(seeded.store), state.account(holder), ...[0, 1, 2, 3].map((index) => state.storage(seeded.store, slot(index)))])

  test('a second source over the same file asks the upstream nothing it has', async () => {
    const path = join(dir, 'second.sqlite')
    const first = cached(path)
    const answers = await readAll(first.state)
    first.cache.close()
    expect(counting.requests.length).toBe(1)

    counting.requests.length = 0
    const second = cached(path)
    expect(await readAll(second.state)).toEqual(answers)
    expect(counting.requests.length).toBe(0)
    second.cache.close()

    // Another fork block (genesis, before the deployment) is another key: nothing of the first is taken for it.
    const client = createPublicClient({ transport: http(upstream.url, { retryCount: 0 }) })
    const genesis = await client.getBlock({ blockNumber: 0n })
    const other = cached(path, { ...seeded.fork, number: 0n, hash: genesis.hash })
    expect((await other.state.account(seeded.store)).code).toBe('0x')
    expect(counting.requests.length).toBe(1)
    other.cache.close()
  })

  test('what a process fetched before a kill -9 is in the cache', async () => {
    const path = join(dir, 'killed.sqlite')
    const fork = JSON.stringify({ chainId: `${seeded.fork.chainId}`, number: `${seeded.fork.number}`, hash: seeded.fork.hash })
    const child = spawn(process.execPath, [join(import.meta.dirname, 'forkCacheChild.ts'), counting.url, path, fork, seeded.store], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    let errors = ''
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()))
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_, signal) => resolve(signal)))
    // Killed part way, once it has printed five slots: it never closes the database.
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString()
        if (output.split('\n').length > 5) resolve()
      })
      child.on('exit', () => reject(new Error(`the child exited before it was killed:\n${output}${errors}`)))
    })
    child.kill('SIGKILL')
    expect(await exited).toBe('SIGKILL')
    const printed = output.split('\n').filter((line) => line.startsWith('slot '))
    expect(printed.length).toBeGreaterThanOrEqual(5)
    expect(printed[0]).toBe('slot 0 7')

    counting.requests.length = 0
    const restarted = cached(path)
    const values = await Promise.all(printed.map((_, index) => restarted.state.storage(seeded.store, slot(index))))
    expect(values.map((value, index) => `slot ${index} ${value}`)).toEqual(printed)
    expect(counting.requests.length).toBe(0)
    restarted.cache.close()
  })
})

describe('upstream failures', () => {
  let upstream: Upstream
  let seeded: Seeded
  const proxies: CountingProxy[] = []
  const proxy = async (behaviour: Parameters<typeof startProxy>[1]) => {
    const started = await startProxy(upstream.url, behaviour)
    proxies.push(started)
    return started
  }
  const what = () => `eth_getStorageAt ${seeded.store} 0x${'0'.repeat(64)} at block ${seeded.fork.number}`

  beforeAll(async () => {
    upstream = await startAnvil('auto')
    seeded = await seed(upstream.url)
  })
  afterAll(async () => {
    await Promise.all(proxies.map((started) => started.close()))
    await upstream?.close()
  })

  test('a 503 is tried again with backoff, and the answer comes through', async () => {
    const flaky = await proxy((index) => (index < 2 ? 'unavailable' : 'forward'))
    expect(await source(flaky.url, seeded.fork, { retries: 2, retryBackoffMs: 1 }).storage(seeded.store, slot(0))).toBe(7n)
    expect(flaky.requests.length).toBe(3)
  })

  test('error: 503 past the retries names the upstream and the read', async () => {
    const down = await proxy(() => 'unavailable')
    const failed = source(down.url, seeded.fork, { retries: 2, retryBackoffMs: 1 }).storage(seeded.store, slot(0))
    await expect(failed).rejects.toThrow(new UpstreamError({ upstream: down.url, what: what(), detail: 'HTTP 503 (3 attempts)' }))
    await expect(failed).rejects.toBeInstanceOf(UpstreamError)
    expect(down.requests.length).toBe(3)
  })

  test('error: garbage fails at once, without retries', async () => {
    const garbage = await proxy(() => 'garbage')
    const failed = source(garbage.url, seeded.fork, { retries: 3, retryBackoffMs: 1 }).storage(seeded.store, slot(0))
    await expect(failed).rejects.toThrow(`upstream ${garbage.url} failed ${what()}: answered something that is not JSON: <html>oops</html>`)
    expect(garbage.requests.length).toBe(1)
  })

  test('error: a JSON-RPC answer with wrong hex fails at once', async () => {
    const wrong = await proxy(() => 'badHex')
    const state = source(wrong.url, seeded.fork, { retries: 3, retryBackoffMs: 1 })
    await expect(state.storage(seeded.store, slot(0))).rejects.toThrow(`upstream ${wrong.url} failed ${what()}: answered a malformed value: "0xzz"`)
    await expect(state.account(holder)).rejects.toThrow(
      `upstream ${wrong.url} failed eth_getBalance ${holder} at block ${seeded.fork.number}: answered a malformed value: "0xzz"`,
    )
    expect(wrong.requests.length).toBe(2)
  })

  test('error: a stalled upstream times out instead of hanging', async () => {
    const stalled = await proxy(() => 'stall')
    const failed = source(stalled.url, seeded.fork, { retries: 1, retryBackoffMs: 1, timeoutMs: 200 }).storage(seeded.store, slot(0))
    await expect(failed).rejects.toThrow(`upstream ${stalled.url} failed ${what()}: no answer within 200 ms (2 attempts)`)
    expect(stalled.requests.length).toBeLessThanOrEqual(2)
  })

  test('error: an upstream that is not there', async () => {
    const gone = await startProxy(upstream.url)
    await gone.close()
    const failed = source(gone.url, seeded.fork, { retries: 1, retryBackoffMs: 1 }).storage(seeded.store, slot(0))
    await expect(failed).rejects.toThrow(`upstream ${gone.url} failed ${what()}: ECONNREFUSED (2 attempts)`)
  })

  test('error: credentials in the URL are not named', async () => {
    const down = await proxy(() => 'unavailable')
    const withKey = `${down.url.replace('http://', 'http://user:secret@')}/v2/key?apikey=secret`
    const failed = source(withKey, seeded.fork, { retries: 0 }).storage(seeded.store, slot(0))
    await expect(failed).rejects.toThrow(`upstream ${down.url} failed ${what()}: HTTP 503 (1 attempt)`)
  })
})
