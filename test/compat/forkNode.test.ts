/**
 * flashchain forking a real upstream on loopback (docs/fork.md): anvil, and another flashchain, each seeded with two
 * tokens and a small AMM (bench/fork-world.ts) and moved on past the fork block. The fork answers as the upstream did
 * at that block, and everything local runs on top: transactions, a wallet batch, pending, test control, traces.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { DatabaseSync } from 'node:sqlite'
import { join } from 'node:path'

import { createPublicClient, encodeFunctionData, http, parseEther, toFunctionSelector } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

import { token } from '../../bench/chain.ts'
import { OTHER, SENDER, SWAP_IN, amm, runWorkload, seedUpstream } from '../../bench/fork-world.ts'
import { startChain, toHex, untilOnWorker, word } from '../e2e/helpers.ts'
import { startProxy } from './forkUpstream.ts'
import { startAnvil } from './tools.ts'

import type { ChildProcess } from 'node:child_process'
import type { Hex } from 'viem'
import type { World } from '../../bench/fork-world.ts'
import type { TestChain } from '../e2e/helpers.ts'
import type { Behaviour, CountingProxy, Upstream } from './forkUpstream.ts'

const stranger = '0x000000000000000000000000000000000000dead' as Hex
const lower = (address: string) => address.toLowerCase() as Hex
const read = (t: { publicClient: TestChain['publicClient'] }, address: Hex, functionName: string, args: unknown[] = []) =>
  t.publicClient.readContract({ address, abi: amm.abi, functionName, args }) as Promise<unknown>

describe.each(['anvil', 'flashchain'] as const)('flashchain forking %s', (kind) => {
  let upstream: Upstream
  let world: World
  let counting: CountingProxy
  const forks: TestChain[] = []
  const forkOf = async (options: { mining?: 'auto' | 'manual'; blockNumber?: bigint } = {}) => {
    const fork = await startChain({
      mining: options.mining ?? 'auto',
      fork: { url: counting.url, blockNumber: options.blockNumber ?? world.forkBlock },
      // An upstream read may take its time on a busy machine (a trace on the upstream flashchain above all): the
      // default 5 s deadline is for users' forks, and the test that needs one sets its own.
      rpcEvmTimeout: 60_000,
    })
    forks.push(fork)
    return fork
  }
  const upstreamClient = () => createPublicClient({ transport: http(upstream.url, { retryCount: 0 }) })

  beforeAll(async () => {
    upstream = kind === 'anvil' ? await startAnvil('auto') : await startChain({ mining: 'auto' })
    world = await seedUpstream(upstream.url)
    counting = await startProxy(upstream.url)
  })
  afterAll(async () => {
    await Promise.all(forks.map((fork) => fork.close()))
    await counting?.close()
    await upstream?.close()
  })

  test('answers what the upstream held at the fork block: accounts, code, storage and calls, not what came later', async () => {
    const fork = await forkOf()
    const at = { blockNumber: world.forkBlock }
    const client = upstreamClient()
    expect(await fork.blockNumber()).toBe(world.forkBlock)
    expect((await fork.publicClient.getBlock({ blockNumber: world.forkBlock })).hash).toBe((await client.getBlock(at)).hash)
    expect(await fork.publicClient.getChainId()).toBe(await client.getChainId())

    for (const address of [world.tokenA, world.tokenB, world.pair, stranger]) {
      expect(await fork.publicClient.getBalance({ address })).toBe(await client.getBalance({ address, ...at }))
      expect(await fork.publicClient.getTransactionCount({ address })).toBe(await client.getTransactionCount({ address, ...at }))
      expect(await fork.publicClient.getCode({ address })).toBe(await client.getCode({ address, ...at }))
      for (const slot of [0n, 1n, 2n, 3n]) {
        expect(await fork.publicClient.getStorageAt({ address, slot: word(slot) })).toBe(
          await client.getStorageAt({ address, slot: word(slot), ...at }),
        )
      }
    }
    // The dev accounts keep the upstream's nonce and get the dev balance, as on anvil's forks.
    expect(await fork.publicClient.getTransactionCount({ address: OTHER })).toBe(await client.getTransactionCount({ address: OTHER, ...at }))
    expect(await fork.publicClient.getBalance({ address: OTHER })).toBe(parseEther('10000'))

    const reserves = await read(fork, world.pair, 'getReserves')
    expect(reserves).toEqual(await client.readContract({ address: world.pair, abi: amm.abi, functionName: 'getReserves', ...at }))
    expect(reserves).not.toEqual(await client.readContract({ address: world.pair, abi: amm.abi, functionName: 'getReserves' }))
    const balance = { abi: token.abi, functionName: 'balanceOf', args: [OTHER] } as const
    expect(await fork.publicClient.readContract({ address: world.tokenA, ...balance })).toBe(
      await client.readContract({ address: world.tokenA, ...balance, ...at }),
    )
  })

  test('a cold swap asks for traces of its calls, and all they bring is the upstream’s at the fork block', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'flashchain-fork-traced-'))
    try {
      const from = counting.requests.length
      const fork = await startChain({ mining: 'auto', fork: { url: counting.url, blockNumber: world.forkBlock, cacheDir }, rpcEvmTimeout: 60_000 })
      forks.push(fork)
      // A new fork fetches what its first block's system work reads while it waits for a transaction: the EIP-4788
      // and EIP-2935 ring buffers' slots among them.
      const started = () =>
        counting.requests.slice(from).flatMap((body) => (Array.isArray(body) ? body : [body])) as { method: string; params: Hex[] }[]
      for (
        let wait = 0;
        wait < 500 && !started().some((call) => call.method === 'eth_getStorageAt' && RING_BUFFERS.includes(call.params[0]!));
        wait++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      expect(started().filter((call) => call.method === 'eth_getStorageAt' && RING_BUFFERS.includes(call.params[0]!)).length).toBeGreaterThan(16)
      await runWorkload('swap', fork.url, world)
      type Call = { method: string; params: [{ data: Hex }, unknown, { stateOverrides?: Record<Hex, unknown> }] }
      const calls = counting.requests.slice(from).flatMap((body) => (Array.isArray(body) ? body : [body])) as Call[]
      // The approval's and the swap's, each run from the sender's account as it is here (the dev balance, the nonce
      // the approval moved). Later traces, with the local values of what the first one read, come when they come.
      const traces = calls.filter((call) => call.method === 'debug_traceCall')
      const approve = encodeFunctionData({ abi: token.abi, functionName: 'approve', args: [world.pair, SWAP_IN] })
      expect(traces[0]!.params[0].data).toBe(approve)
      expect(traces.map((trace) => trace.params[0].data.slice(0, 10))).toContain(toFunctionSelector('swap(address,uint256,uint256,address)'))
      for (const trace of traces) expect(Object.keys(trace.params[2].stateOverrides ?? {})).toContain(lower(SENDER))

      // What is held is the upstream's at the fork block, every key the traces brought too: no value a local
      // transaction wrote (the approval, the balances and reserves the swap moved) nor one a trace was told.
      const client = upstreamClient()
      const at = { blockNumber: world.forkBlock }
      const db = new DatabaseSync(join(cacheDir, 'fork-cache.sqlite'), { readOnly: true })
      try {
        const slots = db.prepare('SELECT address, slot, value FROM storage').all() as { address: Hex; slot: Hex; value: string }[]
        expect(slots.filter(({ address }) => address === lower(world.pair)).length).toBeGreaterThan(0)
        for (const { address, slot, value } of slots)
          expect([address, slot, BigInt(value)]).toEqual([address, slot, BigInt((await client.getStorageAt({ address, slot, ...at }))!)])
        const accounts = db.prepare('SELECT address, balance, nonce, code FROM accounts').all() as {
          address: Hex
          balance: string
          nonce: string
          code: Hex
        }[]
        expect(accounts.map(({ address }) => address)).toEqual(expect.arrayContaining([world.tokenA, world.tokenB, world.pair].map(lower)))
        for (const { address, balance, nonce, code } of accounts) {
          expect([address, BigInt(balance), Number(nonce), code]).toEqual([
            address,
            await client.getBalance({ address, ...at }),
            await client.getTransactionCount({ address, ...at }),
            (await client.getCode({ address, ...at })) ?? '0x',
          ])
        }
      } finally {
        db.close()
      }
    } finally {
      rmSync(cacheDir, { recursive: true, force: true })
    }
  })

  test('runs local transactions as a plain chain does, and leaves the upstream alone', async () => {
    const fork = await forkOf()
    const before = await upstreamClient().readContract({ address: world.pair, abi: amm.abi, functionName: 'getReserves' })
    // Each checks its receipts, and the swap its output against the fork block's quote and the reserves after it.
    await runWorkload('transfer', fork.url, world)
    await runWorkload('swap', fork.url, world)
    expect(await fork.blockNumber()).toBe(world.forkBlock + 3n)
    expect(await upstreamClient().readContract({ address: world.pair, abi: amm.abi, functionName: 'getReserves' })).toEqual(before)
  })

  test('with every run on the main thread (--workers 0) as on workers: state, calls and transactions', async () => {
    const fork = await startChain({ mining: 'auto', workers: 0, fork: { url: counting.url, blockNumber: world.forkBlock } })
    forks.push(fork)
    const at = { blockNumber: world.forkBlock }
    expect(await read(fork, world.pair, 'getReserves')).toEqual(
      await upstreamClient().readContract({ address: world.pair, abi: amm.abi, functionName: 'getReserves', ...at }),
    )
    await runWorkload('swap', fork.url, world)
    await runWorkload('transfer', fork.url, world)
    expect(await fork.blockNumber()).toBe(world.forkBlock + 3n)
  })

  test('wallet_sendCalls: an approval and a swap as one atomic batch, through an EIP-7702 upgrade', async () => {
    const fork = await forkOf()
    const [reserveA, reserveB] = (await read(fork, world.pair, 'getReserves')) as [bigint, bigint]
    const out = (await read(fork, world.pair, 'quote', [SWAP_IN, reserveA, reserveB])) as bigint
    const { id } = await fork.rpc<{ id: Hex }>('wallet_sendCalls', [
      {
        version: '2.0.0',
        from: SENDER,
        chainId: toHex(await fork.publicClient.getChainId()),
        atomicRequired: true,
        calls: [
          { to: world.tokenA, data: encodeFunctionData({ abi: token.abi, functionName: 'approve', args: [world.pair, SWAP_IN] }) },
          { to: world.pair, data: encodeFunctionData({ abi: amm.abi, functionName: 'swap', args: [world.tokenA, SWAP_IN, out, SENDER] }) },
        ],
      },
    ])
    const status = await fork.rpc<{ status: number; atomic: boolean; receipts: { status: Hex }[] }>('wallet_getCallsStatus', [id])
    expect(status).toMatchObject({ status: 200, atomic: true, receipts: [{ status: '0x1' }] })
    expect(await read(fork, world.pair, 'getReserves')).toEqual([reserveA + SWAP_IN, reserveB - out])
    expect((await fork.publicClient.getCode({ address: SENDER }))?.startsWith('0xef0100')).toBe(true)
  })

  test('pending shows a pre-confirmed transaction on forked state before its block is sealed', async () => {
    const fork = await forkOf({ mining: 'manual' })
    const hash = await fork.rpc<Hex>('eth_sendTransaction', [{ from: SENDER, to: stranger, value: toHex(5n) }])
    await fork.preconfirm()
    expect(await fork.rpc('eth_getBalance', [stranger, 'pending'])).toBe('0x5')
    expect(await fork.rpc('eth_getBalance', [stranger, 'latest'])).toBe('0x0')
    expect(await fork.mine()).toBe(world.forkBlock + 1n)
    expect(await fork.rpc('eth_getBalance', [stranger, 'latest'])).toBe('0x5')
    expect((await fork.publicClient.getTransactionReceipt({ hash })).status).toBe('success')
  })

  test('snapshots, reverts and a reset go back to the upstream’s state; a local transaction traces', async () => {
    const fork = await forkOf()
    const reserves = await read(fork, world.pair, 'getReserves')
    const snapshot = await fork.rpc<Hex>('evm_snapshot')
    await runWorkload('swap', fork.url, world)
    const block = await fork.publicClient.getBlock({ blockTag: 'latest' })
    const trace = await fork.rpc<{ to: Hex; calls: { to: Hex }[] }>('debug_traceTransaction', [block.transactions[0], { tracer: 'callTracer' }])
    expect(trace.to).toBe(lower(world.pair))
    expect(trace.calls.map((call) => call.to)).toEqual([lower(world.tokenA), lower(world.tokenB)])
    expect(await fork.rpc('evm_revert', [snapshot])).toBe(true)
    expect(await read(fork, world.pair, 'getReserves')).toEqual(reserves)

    await runWorkload('transfer', fork.url, world)
    await fork.rpc('anvil_reset')
    expect(await fork.blockNumber()).toBe(world.forkBlock)
    expect(await fork.publicClient.getBalance({ address: SENDER })).toBe(parseEther('10000'))
    await runWorkload('swap', fork.url, world)
  })

  test('the upstream answers for the blocks up to the fork block and the state before it; eth_getLogs is split there', async () => {
    const fork = await forkOf()
    const upstreamRpc = <T = unknown>(method: string, params: unknown[]) => rpcAt<T>(upstream.url, method, params)
    const before = toHex(world.forkBlock - 1n)
    for (const [method, params] of [
      ['eth_getBlockByNumber', [before, true]],
      ['eth_getBlockByNumber', ['earliest', false]],
      ['eth_getBlockByNumber', [toHex(world.forkBlock), true]],
      ['eth_getBlockReceipts', [before]],
      ['eth_getBlockTransactionCountByNumber', [before]],
      ['eth_getBalance', [OTHER, before]],
      ['eth_getTransactionCount', [OTHER, before]],
      ['eth_getStorageAt', [world.pair, toHex(0), before]],
      ['eth_call', [{ to: world.pair, data: encodeFunctionData({ abi: amm.abi, functionName: 'getReserves' }) }, toHex(world.forkBlock - 3n)]],
    ] as const) {
      expect(await fork.rpc(method, [...params]), `${method} ${JSON.stringify(params)}`).toEqual(await upstreamRpc(method, [...params]))
    }
    // `latest` is this chain's: the fork block, whose header and transactions the upstream holds.
    expect(await fork.rpc('eth_getBlockByNumber', ['latest', false])).toEqual(
      await upstreamRpc('eth_getBlockByNumber', [toHex(world.forkBlock), false]),
    )

    const earlier = await upstreamRpc<{ hash: Hex; transactions: Hex[] }>('eth_getBlockByNumber', [before, false])
    expect(await fork.rpc('eth_getBlockByHash', [earlier.hash, false])).toEqual(earlier)
    const transaction = earlier.transactions[0]!
    expect(await fork.rpc('eth_getTransactionByHash', [transaction])).toEqual(await upstreamRpc('eth_getTransactionByHash', [transaction]))
    expect(await fork.rpc('eth_getTransactionReceipt', [transaction])).toEqual(await upstreamRpc('eth_getTransactionReceipt', [transaction]))
    // What the upstream did after the fork block is none of the fork's.
    const later = await upstreamRpc<{ hash: Hex; transactions: Hex[] }>('eth_getBlockByNumber', [toHex(world.forkBlock + 1n), false])
    expect(await fork.rpc('eth_getBlockByHash', [later.hash, false])).toBeNull()
    expect(await fork.rpc('eth_getTransactionByHash', [later.transactions[0]])).toBeNull()
    expect(await fork.rpc('eth_getTransactionReceipt', [later.transactions[0]])).toBeNull()

    // Traces of the upstream's transactions and blocks up to the fork block are the upstream's; its later ones are
    // not found, as a hash nobody holds.
    const callTracer = { tracer: 'callTracer' }
    for (const [method, params] of [
      ['debug_traceTransaction', [transaction, callTracer]],
      ['debug_traceTransaction', [transaction]],
      ['debug_traceBlockByNumber', [before, callTracer]],
      ['debug_traceBlockByHash', [earlier.hash, callTracer]],
    ] as const) {
      expect(await fork.rpc(method, [...params]), `${method} ${JSON.stringify(params)}`).toEqual(await upstreamRpc(method, [...params]))
    }
    const unknown = await fork.rpcError('debug_traceTransaction', [`0x${'ee'.repeat(32)}`])
    expect(await fork.rpcError('debug_traceTransaction', [later.transactions[0], callTracer])).toEqual(unknown)

    // BLOCKHASH of a block before the fork block: initcode that returns blockhash(forkBlock - 1).
    const initcode = `0x60${(world.forkBlock - 1n).toString(16).padStart(2, '0')}4060005260206000f3`
    expect(await fork.rpc('eth_call', [{ data: initcode }, 'latest'])).toBe(earlier.hash)

    // Logs from genesis to the head: the upstream's up to the fork block, then the fork's own swap.
    await runWorkload('swap', fork.url, world)
    const filter = { address: world.pair, fromBlock: '0x0', toBlock: 'latest' }
    const upstreamLogs = await upstreamRpc<{ blockNumber: Hex; blockHash: Hex }[]>('eth_getLogs', [{ ...filter, toBlock: toHex(world.forkBlock) }])
    const logs = await fork.rpc<{ blockNumber: Hex; transactionHash: Hex }[]>('eth_getLogs', [filter])
    expect(upstreamLogs.length).toBeGreaterThan(0)
    expect(logs.slice(0, upstreamLogs.length)).toEqual(upstreamLogs)
    const local = logs.slice(upstreamLogs.length)
    expect(local.length).toBeGreaterThan(0)
    expect(new Set(local.map((log) => BigInt(log.blockNumber)))).toEqual(new Set([world.forkBlock + 2n]))
    // One pre-fork block's logs by its hash: the upstream's.
    const logged = upstreamLogs.at(-1)!
    expect(await fork.rpc('eth_getLogs', [{ blockHash: logged.blockHash }])).toEqual(
      await upstreamRpc('eth_getLogs', [{ blockHash: logged.blockHash }]),
    )
    // A filter's logs are eth_getLogs' answer to its query.
    const filterId = await fork.rpc<Hex>('eth_newFilter', [filter])
    expect(await fork.rpc('eth_getFilterLogs', [filterId])).toEqual(logs)

    // Proofs: the upstream's before the fork block; a fork's own roots prove nothing of the upstream's accounts.
    expect(await fork.rpc('eth_getProof', [world.pair, [], before])).toEqual(await upstreamRpc('eth_getProof', [world.pair, [], before]))
    expect((await fork.rpcError('eth_getProof', [world.pair, [], 'latest'])).message).toMatch(
      /^eth_getProof on a fork proves the blocks before the fork block only/,
    )

    // Asked again, each is answered from what was kept.
    const asked = counting.requests.length
    await fork.rpc('eth_getBlockByNumber', [before, true])
    await fork.rpc('eth_getTransactionReceipt', [transaction])
    expect(counting.requests.length).toBe(asked)
  })

  test('anvil_reset with forking, and viem’s reset, fork again at another block; anvil_nodeInfo and the metadata say which', async () => {
    const fork = await forkOf()
    const client = upstreamClient()
    const head = await client.getBlock({ blockNumber: world.upstreamHead })
    await fork.testClient.reset({ blockNumber: world.upstreamHead })
    expect(await fork.blockNumber()).toBe(world.upstreamHead)
    expect((await fork.publicClient.getBlock({ blockTag: 'latest' })).hash).toBe(head.hash)
    expect(await read(fork, world.pair, 'getReserves')).toEqual(
      await client.readContract({ address: world.pair, abi: amm.abi, functionName: 'getReserves', blockNumber: world.upstreamHead }),
    )
    const info = await fork.rpc<{ forkConfig: unknown }>('anvil_nodeInfo')
    expect(info.forkConfig).toEqual({ forkUrl: counting.url, forkBlockNumber: Number(world.upstreamHead), forkRetryBackoff: 250 })
    const metadata = await fork.rpc<{ forkedNetwork: unknown }>('anvil_metadata')
    expect(metadata.forkedNetwork).toEqual({ chainId: 31337, forkBlockNumber: Number(world.upstreamHead), forkBlockHash: head.hash })
    expect((await fork.rpc<{ forkedNetwork: unknown }>('hardhat_metadata')).forkedNetwork).toEqual(metadata.forkedNetwork)

    // Straight to the upstream this time, at the first fork block, as anvil_reset's jsonRpcUrl and blockNumber say.
    await fork.rpc('anvil_reset', [{ forking: { jsonRpcUrl: upstream.url, blockNumber: Number(world.forkBlock) } }])
    expect(await fork.blockNumber()).toBe(world.forkBlock)
    expect((await fork.rpc<{ forkConfig: { forkUrl: string } }>('anvil_nodeInfo')).forkConfig.forkUrl).toBe(upstream.url)
    await runWorkload('swap', fork.url, world)
  })
})

describe('a fork against its upstream’s failures, a kill -9 and a restart', () => {
  let upstream: Upstream
  let world: World
  let behaviour: Behaviour = 'forward'
  let proxy: CountingProxy
  const dirs: string[] = []
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'flashchain-fork-'))
    dirs.push(dir)
    return dir
  }

  beforeAll(async () => {
    upstream = await startAnvil('auto')
    world = await seedUpstream(upstream.url)
    proxy = await startProxy(upstream.url, () => behaviour)
  })
  afterAll(async () => {
    await proxy?.close()
    await upstream?.close()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  test('error: an upstream that fails after the start gets -32000 naming it and the read; the node answers on', async () => {
    const debug: string[] = []
    const fork = await startChain({
      // Short, so that the stalls below fail fast, and long enough for the start's reads on a busy machine (500 ms
      // was not: eth_chainId at the start failed by it in CI).
      rpcEvmTimeout: 2000,
      fork: { url: proxy.url, blockNumber: world.forkBlock, retries: 1, retryBackoffMs: 1 },
      debug: (line) => debug.push(line),
    })
    try {
      const fresh = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Hex
      behaviour = 'unavailable'
      expect(await fork.rpcError('eth_getBalance', [fresh(0xa1), 'latest'])).toEqual({
        code: -32000,
        message: `fork upstream ${proxy.url} failed eth_getBalance ${fresh(0xa1)} at block ${world.forkBlock}: HTTP 503 (2 attempts)`,
      })
      behaviour = 'garbage'
      expect((await fork.rpcError('eth_getCode', [fresh(0xa2), 'latest'])).message).toMatch(
        /answered something that is not JSON: <html>oops<\/html>$/,
      )
      // A stalled upstream: a read gives up by --rpc-evm-timeout, whatever the retries. The first call is tried on
      // the main thread while the workers load, where its stalled read fails the same way; a run on a worker is
      // aborted then, as any run past it is.
      behaviour = 'stall'
      const stalled = /^fork upstream .+ failed eth_getBalance 0x0{40} at block \d+: no answer within \d+ ms \(1 attempt\)$/
      expect((await fork.rpcError('eth_getCode', [fresh(0xa3), 'latest'])).message).toMatch(/no answer within \d+ ms \(1 attempt\)$/)
      expect(await fork.rpcError('eth_call', [{ to: fresh(0xa4) }, 'latest'])).toEqual({ code: -32000, message: expect.stringMatching(stalled) })
      behaviour = 'forward'
      await untilOnWorker(fork, debug)
      behaviour = 'stall'
      expect(await fork.rpcError('eth_call', [{ to: fresh(0xa5) }, 'latest'])).toEqual({
        code: -32000,
        message: 'execution aborted (timeout = 2s)',
      })
      behaviour = 'forward'
      expect(await fork.rpc('eth_getBalance', [fresh(0xa1), 'latest'])).toBe('0x0')
      expect(await fork.rpc('eth_chainId')).toBe('0x7a69')
    } finally {
      behaviour = 'forward'
      await fork.close()
    }
  })

  test('a cold transfer and a cold swap ask the upstream no more than anvil forking it through the same proxy', async () => {
    const requestsOf = async (start: () => Promise<{ url: string; close(): Promise<void> }>, workload: 'transfer' | 'swap') => {
      const peer = await start()
      try {
        const from = proxy.requests.length
        await runWorkload(workload, peer.url, world)
        return proxy.requests.length - from
      } finally {
        await peer.close()
      }
    }
    const anvil = () =>
      startAnvil('auto', ['--fork-url', proxy.url, '--fork-block-number', `${world.forkBlock}`], { ...process.env, HOME: tempDir() })
    const flashchain = () => startChain({ mining: 'auto', fork: { url: proxy.url, blockNumber: world.forkBlock } })
    for (const workload of ['transfer', 'swap'] as const) {
      const anvils = await requestsOf(anvil, workload)
      const ours = await requestsOf(flashchain, workload)
      expect(ours, `${workload}: flashchain ${ours}, anvil ${anvils}`).toBeLessThanOrEqual(anvils)
    }
  })

  test('a transaction whose run meets a failing upstream stays in the pool, and is mined once the upstream answers', async () => {
    const fork = await startChain({ fork: { url: proxy.url, blockNumber: world.forkBlock, retries: 0 } })
    try {
      // Signed here, with its gas given: the pool's door reads only the sender, which the start fetched.
      const sender = fork.accounts[5]!
      const raw = await sender.signTransaction({
        chainId: 31337,
        type: 'eip1559',
        nonce: await fork.publicClient.getTransactionCount({ address: sender.address }),
        to: world.tokenA,
        data: encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [stranger, 0n] }),
        gas: 100_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      })
      // The block is started (its system work read) while the upstream answers; then it fails.
      await fork.preconfirm()
      behaviour = 'unavailable'
      const hash = await fork.rpc<Hex>('eth_sendRawTransaction', [raw])
      await fork.preconfirm()
      // Its run could not read the token: it is in no flashblock, and waits in the pool.
      expect(await fork.rpc('eth_getTransactionReceipt', [hash])).toBeNull()
      expect(await fork.rpc('eth_getTransactionByHash', [hash])).toMatchObject({ hash, blockNumber: null })
      // A block sealed meanwhile goes without it (its system work's slots were fetched ahead), and it still waits.
      await fork.mine()
      expect((await fork.publicClient.getBlock({ blockTag: 'latest' })).transactions).toEqual([])
      expect(await fork.rpc('eth_getTransactionByHash', [hash])).toMatchObject({ hash, blockNumber: null })
      behaviour = 'forward'
      await fork.mine()
      expect((await fork.publicClient.getTransactionReceipt({ hash })).status).toBe('success')
    } finally {
      behaviour = 'forward'
      await fork.close()
    }
  })

  test('error: a reset to another chain or to an upstream that is not there is refused, and the fork stays as it was', async () => {
    const other = await startAnvil('auto', ['--chain-id', '5'])
    const gone = await startProxy(upstream.url)
    await gone.close()
    const fork = await startChain({ mining: 'auto', fork: { url: proxy.url, blockNumber: world.forkBlock, retries: 0 } })
    try {
      await runWorkload('transfer', fork.url, world)
      const head = await fork.publicClient.getBlock({ blockTag: 'latest' })
      expect(await fork.rpcError('anvil_reset', [{ forking: { jsonRpcUrl: other.url } }])).toEqual({
        code: -32000,
        message: `${other.url} runs chain 5, and this fork chain 31337: restart with --fork-url to fork it`,
      })
      expect((await fork.rpcError('anvil_reset', [{ forking: { jsonRpcUrl: gone.url } }])).message).toBe(
        `fork upstream ${gone.url} failed eth_chainId: ECONNREFUSED (1 attempt)`,
      )
      expect((await fork.publicClient.getBlock({ blockTag: 'latest' })).hash).toBe(head.hash)
      expect((await fork.rpc<{ forkConfig: { forkUrl: string } }>('anvil_nodeInfo')).forkConfig.forkUrl).toBe(proxy.url)
      await runWorkload('swap', fork.url, world)
    } finally {
      await fork.close()
      await other.close()
    }
  })

  test('error: a data dir that holds a chain of its own does not become a fork', async () => {
    const dataDir = tempDir()
    await (await startChain({ dataDir })).close()
    await expect(startChain({ dataDir, fork: { url: proxy.url, blockNumber: world.forkBlock } })).rejects.toThrow(
      'the data dir holds a chain that is not a fork: start with --fresh to fork, or use another --data-dir',
    )
  })

  test('error: a start whose upstream is not there fails with its address', async () => {
    const gone = await startProxy(upstream.url)
    await gone.close()
    await expect(startChain({ fork: { url: gone.url, retries: 0 } })).rejects.toThrow(
      `upstream ${gone.url} failed eth_chainId: ECONNREFUSED (1 attempt)`,
    )
  })

  test('kill -9 during a cold run: what it fetched is in the cache, and the next run asks the upstream none of it', async () => {
    const cache = tempDir()
    const keys = (from: number) =>
      new Set(
        proxy.requests
          .slice(from)
          .flatMap((body) => (Array.isArray(body) ? body : [body]))
          .map(stateKey)
          .filter((key) => key !== undefined),
      )
    const start = (dir: string) =>
      startNode(['--ephemeral', '--mining', 'auto', '--fork-url', proxy.url, '--fork-block-number', `${world.forkBlock}`, '--fork-cache', dir])
    const first = proxy.requests.length
    const child = await start(cache)
    await runWorkload('transfer', child.url, world)
    child.process.kill('SIGKILL')
    await child.exited

    // What the killed process had received, as the cache file holds it.
    const fetched = cachedKeys(join(cache, 'fork-cache.sqlite'))
    expect(fetched.size).toBeGreaterThan(10)
    // Every key the transfer waited for was written before it was used. The lookahead's background batch (the next
    // blocks' EIP-4788 and EIP-2935 slots) may have been cut short by the kill, and is all a restart may ask again.
    const lookahead = (key: string) => RING_BUFFERS.some((address) => key.startsWith(`eth_getStorageAt ${address}`))
    expect([...keys(first)].filter((key) => !lookahead(key) && !fetched.has(key))).toEqual([])

    const second = proxy.requests.length
    const again = await start(cache)
    try {
      await runWorkload('transfer', again.url, world)
      expect([...keys(second)].filter((key) => fetched.has(key))).toEqual([])
    } finally {
      again.process.kill('SIGKILL')
    }
  })

  test('a data dir keeps its fork: a restart resumes it, and refuses another fork block', async () => {
    const dataDir = tempDir()
    const fork = await startChain({ dataDir, mining: 'auto', fork: { url: proxy.url, blockNumber: world.forkBlock } })
    await runWorkload('swap', fork.url, world)
    const reserves = await read(fork, world.pair, 'getReserves')
    await fork.close()

    const resumed = await startChain({ dataDir, mining: 'auto', fork: { url: proxy.url } })
    try {
      expect(await resumed.blockNumber()).toBe(world.forkBlock + 2n)
      expect(await read(resumed, world.pair, 'getReserves')).toEqual(reserves)
    } finally {
      await resumed.close()
    }
    await expect(startChain({ dataDir, fork: { url: proxy.url, blockNumber: world.upstreamHead } })).rejects.toThrow(
      `the data dir holds a fork of block ${world.forkBlock}`,
    )
    await expect(startChain({ dataDir })).rejects.toThrow('the data dir holds a fork of chain 31337')
  })
})

describe('a warm start at a fork block deep below the upstream’s head', () => {
  test('asks the upstream nothing: the pin, the first block’s accounts and the state read before are all kept', async () => {
    const upstream = await startAnvil('auto')
    const proxy = await startProxy(upstream.url)
    const cacheDir = mkdtempSync(join(tmpdir(), 'flashchain-fork-deep-'))
    try {
      const world = await seedUpstream(upstream.url)
      // 64 blocks on, the fork block is final: no reorg moves it, so its pin is kept.
      await rpcAt(upstream.url, 'anvil_mine', [toHex(70)])
      const fork = { url: proxy.url, blockNumber: world.forkBlock, cacheDir }
      const cold = await startChain({ mining: 'auto', fork })
      const reserves = await read(cold, world.pair, 'getReserves')
      await cold.close()

      const asked = proxy.requests.length
      const warm = await startChain({ mining: 'auto', fork })
      try {
        expect(await read(warm, world.pair, 'getReserves')).toEqual(reserves)
        expect(await warm.blockNumber()).toBe(world.forkBlock)
        expect(proxy.requests.slice(asked)).toEqual([])
      } finally {
        await warm.close()
      }
      // A block near the head is pinned by the upstream every time: it could still be reorganised away.
      const near = proxy.requests.length
      await (await startChain({ fork: { ...fork, blockNumber: world.forkBlock + 70n } })).close()
      await (await startChain({ fork: { ...fork, blockNumber: world.forkBlock + 70n } })).close()
      const pins = proxy.requests.slice(near).filter((body) => Array.isArray(body) && body.some((call) => call.method === 'eth_chainId'))
      expect(pins.length).toBe(2)
    } finally {
      await proxy.close()
      await upstream.close()
      rmSync(cacheDir, { recursive: true, force: true })
    }
  })
})

/** One JSON-RPC call to `url`; its result, or an error with the answer's. */
async function rpcAt<T = unknown>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await response.json()) as { result?: T; error?: { message: string } }
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`)
  return body.result as T
}

/** EIP-4788's and EIP-2935's contracts, whose ring-buffer slots a fork's lookahead fetches in the background. */
const RING_BUFFERS = ['0x000f3df6d732807ef1319fb7b8bb8522d0beac02', '0x0000f90827f1c53a10cb7a02335b175320002935']

/** The state reads a fork cache file holds, as stateKey names them (an account is its three calls). */
function cachedKeys(path: string): Set<string> {
  const db = new DatabaseSync(path, { readOnly: true })
  try {
    const keys = new Set<string>()
    for (const { address } of db.prepare('SELECT address FROM accounts').all() as { address: string }[]) {
      for (const method of ['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode']) keys.add(`${method} ${address}`)
    }
    for (const { address, slot } of db.prepare('SELECT address, slot FROM storage').all() as { address: string; slot: string }[]) {
      keys.add(`eth_getStorageAt ${address} ${slot}`)
    }
    return keys
  } finally {
    db.close()
  }
}

/** What a state read asks the upstream for, as one key (`eth_getStorageAt 0x… 0x…`); undefined for other calls. */
function stateKey(call: unknown): string | undefined {
  const { method, params } = call as { method: string; params: unknown[] }
  if (!['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode', 'eth_getStorageAt'].includes(method)) return undefined
  return `${method} ${params.slice(0, method === 'eth_getStorageAt' ? 2 : 1).join(' ')}`
}

/** The command line, started on a free port; its `Listening on` line gives the URL. */
async function startNode(args: string[]): Promise<{ url: string; process: ChildProcess; exited: Promise<unknown> }> {
  const bin = join(import.meta.dirname, '../../bin/flashchain.js')
  const child = spawn(process.execPath, [bin, '--port', '0', '--quiet', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const listening = /Listening on (http:\/\/\S+)/.exec(output)
      if (listening !== null) resolve(listening[1]!)
    })
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('exit', () => reject(new Error(`flashchain exited before it listened:\n${output}`)))
  })
  return { url, process: child, exited }
}
