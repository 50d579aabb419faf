// The faults bench/resilience.ts measures, one scenario each. A scenario sets up what it needs on a fresh server,
// calls `begin()` (which starts the RSS sampler and the eth_chainId probe), drives its fault with real clients until
// SECONDS pass or the server is killed at the RSS cap, makes its abusers leave, and returns what it saw.
import { createGzip } from 'node:zlib'
import { connect as connectTcp, type Socket } from 'node:net'

import { toHex, type Hex } from 'viem'
import { WebSocket } from 'ws'

import { dev } from './chain.ts'
import { rssMB, sleep } from './servers.ts'
import {
  alive,
  assemble,
  call,
  deployCode,
  deployToken,
  describe,
  round,
  SECONDS,
  sendFromDeployer,
  socketStates,
  startTraffic,
  word,
  type Target,
  type TargetOptions,
} from './resilience-harness.ts'

export type Context = {
  target: Target
  /** Aborted when the sampler kills the server at the RSS cap. */
  signal: AbortSignal
  /** Starts measuring: the RSS peak and the probe count from here. */
  begin(): void
}

export type Outcome = Record<string, string | number | boolean | undefined>

export type Scenario = {
  name: string
  /** The fault, in the issue's words, shortened. */
  fault: string
  server?: TargetOptions
  run(context: Context): Promise<Outcome>
}

/** Burns gas: loops calldata[0:32] times (40 gas a turn). */
const LOOP = assemble('0x00 CALLDATALOAD @loop JUMPDEST DUP1 ISZERO :end JUMPI 0x01 SWAP1 SUB :loop JUMP @end JUMPDEST STOP')
/** Hashes 64 KiB of memory calldata[0:32] times (12,366 gas a turn): a few steps, each with 64 KiB of memory. */
const HASHER = assemble(
  '0x00 CALLDATALOAD @loop JUMPDEST DUP1 ISZERO :end JUMPI 0x010000 0x00 KECCAK256 POP 0x01 SWAP1 SUB :loop JUMP @end JUMPDEST STOP',
)
/** Reads storage slots calldata[0:32] − 1 down to 0. */
const READER = assemble('0x00 CALLDATALOAD @loop JUMPDEST DUP1 ISZERO :end JUMPI 0x01 SWAP1 SUB DUP1 SLOAD POP :loop JUMP @end JUMPDEST STOP')
/** Calls `reader` with this call's calldata: the slots it reads are another contract's, so they enter an access list. */
function forwarderTo(reader: Hex): Hex {
  return assemble(`CALLDATASIZE 0x00 0x00 CALLDATACOPY 0x00 0x00 CALLDATASIZE 0x00 0x00 ${reader.toLowerCase()} GAS CALL STOP`)
}
/** Returns calldata[0:32] zero bytes. */
const RETURNER = assemble('0x00 CALLDATALOAD 0x00 RETURN')

/** Sleeps until `ms` pass or the scenario is aborted. */
async function hold(ms: number, signal: AbortSignal): Promise<void> {
  const deadline = performance.now() + ms
  while (!signal.aborted && performance.now() < deadline) await sleep(Math.max(0, Math.min(200, deadline - performance.now())))
}

type Peer = { ws: WebSocket; localPort: number; closed?: { code: number; reason: string } }

/** Opens a WebSocket to `path` and resolves once it is open, with its local port (for socketStates). */
function openWs(target: Target, path = '/', headers: Record<string, string> = {}): Promise<Peer> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${target.port}${path}`, { perMessageDeflate: false, headers })
    let localPort = 0
    ws.once('upgrade', (response) => {
      localPort = response.socket.localPort ?? 0
    })
    const peer: Peer = { ws, localPort: 0 }
    ws.once('close', (code, reason) => {
      peer.closed = { code, reason: reason.toString().slice(0, 60) }
    })
    ws.on('error', () => {})
    ws.once('open', () => {
      peer.localPort = localPort
      resolve(peer)
    })
    ws.once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)))
    ws.once('error', reject)
  })
}

/** Sends eth_subscribe on `peer` and resolves with the answer (the next message). */
function subscribeWs(peer: Peer, params: unknown[]): Promise<{ result?: string; error?: { code: number } }> {
  return new Promise((resolve) => {
    peer.ws.once('message', (data: Buffer) => resolve(JSON.parse(data.toString('utf8'))))
    peer.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params }))
  })
}

/**
 * How the abusers fared, read from the kernel before they leave: how many the server closed (CLOSE_WAIT) or reset,
 * and the close codes of those it closed (read after resuming them briefly). The rest are terminated.
 */
async function leave(target: Target, peers: Peer[]): Promise<Outcome> {
  const states = alive(target)
    ? socketStates(
        target.port,
        peers.map((peer) => peer.localPort),
      )
    : undefined
  const stillOpen = peers.filter((peer) => peer.closed === undefined)
  const open = states?.established ?? stillOpen.length
  if (states !== undefined && states.established < peers.length) {
    // Only the closed ones are resumed: a still-open one may have gigabytes queued for it.
    for (const peer of peers) if (socketStates(target.port, [peer.localPort]).established === 0) peer.ws.resume()
    await sleep(2000)
  }
  const codes = new Map<string, number>()
  for (const peer of peers) {
    if (peer.closed === undefined) continue
    const key = `${peer.closed.code}${peer.closed.reason === '' ? '' : ` ${peer.closed.reason}`}`
    codes.set(key, (codes.get(key) ?? 0) + 1)
  }
  for (const peer of peers) peer.ws.terminate()
  return {
    'connections still open': open,
    'closed by the server': peers.length - open,
    'close codes': codes.size === 0 ? 'none' : [...codes].map(([code, count]) => `${count}× ${code}`).join(', '),
  }
}

/** Max gap between arrivals, ms. */
function maxGap(arrivals: number[]): number {
  let gap = 0
  for (let i = 1; i < arrivals.length; i++) gap = Math.max(gap, arrivals[i]! - arrivals[i - 1]!)
  return round(gap)
}

/** A request answered or failed, and how long it took. */
async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; outcome: PromiseSettledResult<T> }> {
  const t0 = performance.now()
  const [outcome] = await Promise.allSettled([work()])
  return { ms: round(performance.now() - t0, 0), outcome: outcome! }
}

const slowSubscribers: Scenario = {
  name: 'slow-subscribers',
  fault: '200 WebSocket subscribers of newFlashblocks and pendingLogs read nothing under 100 tx/s',
  async run({ target, signal, begin }) {
    const tokenAddress = await deployToken(target)
    const peers: Peer[] = []
    for (let i = 0; i < 200; i++) {
      const peer = await openWs(target)
      await subscribeWs(peer, ['newFlashblocks'])
      await subscribeWs(peer, ['pendingLogs', { address: tokenAddress }])
      peer.ws.pause()
      peers.push(peer)
    }
    const reader = await openWs(target)
    await subscribeWs(reader, ['newFlashblocks'])
    const arrivals: number[] = []
    reader.ws.on('message', () => arrivals.push(performance.now()))
    begin()
    const traffic = await startTraffic(target, tokenAddress, 100, signal)
    await hold(SECONDS * 1000, signal)
    const sends = await traffic.stop()
    const left = await leave(target, peers)
    reader.ws.terminate()
    return {
      ...left,
      'reader frames': arrivals.length,
      'reader max gap ms': maxGap(arrivals),
      'sends acknowledged': sends.acknowledged,
      'sends timed out (5 s)': sends.timedOut,
      'sends failed': sends.failed,
    }
  },
}

function simulate(name: string, fault: string, call: (i: number, target: Target, loop: Hex) => Record<string, Hex>): Scenario {
  return {
    name,
    fault,
    async run({ target, signal, begin }) {
      const loop = await deployCode(target, LOOP)
      const blockStateCalls = Array.from({ length: 100 }, () => ({ calls: Array.from({ length: 100 }, (_, i) => call(i, target, loop)) }))
      begin()
      const simulation = timed(async () => {
        const response = await fetch(target.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_simulateV1', params: [{ blockStateCalls, validation: false }, 'latest'] }),
          signal: AbortSignal.any([AbortSignal.timeout(SECONDS * 1000), signal]),
        })
        const text = await response.text()
        const error = /^\{"jsonrpc":"2\.0","id":1,"error":(\{.*?\})/.exec(text.slice(0, 500))
        return error === null ? `${round(text.length / 1e6, 2)} MB` : `error ${error[1]}`
      })
      const { ms, outcome } = await simulation
      return { 'time to answer ms': ms, answer: outcome.status === 'fulfilled' ? String(outcome.value) : describe(outcome) }
    },
  }
}

/** About 240,000 gas a call: 100 × 100 of them are 2.4 billion gas. */
const simulateBomb = simulate('simulate-bomb', 'eth_simulateV1 of 100 blocks × 100 gas-burning calls', (_i, _t, loop) => ({
  from: dev.address,
  to: loop,
  data: word(6000),
  gas: toHex(300_000),
}))

const simulateTransfers = simulate('simulate-transfers', 'eth_simulateV1 of 100 blocks × 100 ETH transfers', (i) => ({
  from: dev.address,
  to: `0x${(0x1000 + i).toString(16).padStart(40, '0')}`,
  value: '0x1',
  gas: toHex(21_000),
}))

/** 1,550 turns of HASHER: a 19.2M-gas transaction whose every step carries 64 KiB of memory. */
async function traceScenarioSetup(target: Target): Promise<Hex> {
  const hasher = await deployCode(target, HASHER)
  return sendFromDeployer(target, hasher, word(1550), 19_300_000n)
}

function trace(name: string, fault: string, options: Record<string, unknown>): Scenario {
  return {
    name,
    fault,
    // Prague: Osaka caps a transaction's gas at 2^24 (EIP-7825), below the 19.2M this transaction needs.
    server: { extraArgs: ['--hardfork', 'prague'] },
    async run({ target, signal, begin }) {
      const hash = await traceScenarioSetup(target)
      begin()
      const { ms, outcome } = await timed(async () => {
        const response = await fetch(target.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'debug_traceTransaction', params: [hash, options] }),
          signal: AbortSignal.any([AbortSignal.timeout(SECONDS * 1000), signal]),
        })
        const text = await response.text()
        return text.startsWith('{"jsonrpc":"2.0","id":1,"error"') ? text.slice(0, 160) : `${round(text.length / 1e6, 2)} MB`
      })
      // What else the server was doing shows in the probe; a second of quiet lets it finish before the RSS "after".
      await hold(1000, signal)
      return { 'time to answer ms': ms, answer: outcome.status === 'fulfilled' ? String(outcome.value) : describe(outcome) }
    },
  }
}

const traceBomb = trace('trace-bomb', 'debug_traceTransaction with enableMemory, 19.2M gas over 64 KiB of memory', { enableMemory: true })
const traceDefault = trace('trace-default', 'debug_traceTransaction of the same with the default struct logger', {})

const accessList: Scenario = {
  name: 'access-list',
  fault: 'eth_createAccessList of a call reading 7,000 storage slots',
  async run({ target, begin }) {
    // geth leaves the called contract's own slots out of an access list; these are read one call deeper.
    const forwarder = await deployCode(target, forwarderTo(await deployCode(target, READER)))
    begin()
    const runs: number[] = []
    let answer = ''
    // Three in a row, so the probe sees each hold.
    for (let i = 0; i < 3; i++) {
      const { ms, outcome } = await timed(() =>
        call<{ accessList: { storageKeys: Hex[] }[] }>(target, 'eth_createAccessList', [{ to: forwarder, data: word(7000) }, 'latest'], 60_000),
      )
      runs.push(ms)
      answer =
        outcome.status === 'fulfilled'
          ? `${outcome.value.accessList.reduce((n, item) => n + item.storageKeys.length, 0)} storage keys`
          : describe(outcome)
      await sleep(500)
    }
    return { 'time to answer ms': runs.join(' / '), answer }
  },
}

const bigCalls: Scenario = {
  name: 'big-calls',
  fault: 'eight concurrent eth_calls returning 2.8 MiB each',
  async run({ target, begin }) {
    const returner = await deployCode(target, RETURNER)
    begin()
    const rounds: number[] = []
    let answer = ''
    for (let round_ = 0; round_ < 3; round_++) {
      const t0 = performance.now()
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, () =>
          call<Hex>(target, 'eth_call', [{ to: returner, data: word(Math.round(2.8 * 1024 * 1024)), gas: toHex(40_000_000) }, 'latest'], 60_000),
        ),
      )
      rounds.push(round(performance.now() - t0, 0))
      const ok = outcomes.filter((outcome) => outcome.status === 'fulfilled')
      answer = `${ok.length} of 8 answered${ok.length > 0 ? ` (${round(((ok[0] as PromiseFulfilledResult<Hex>).value.length - 2) / 2 / 1048576, 2)} MiB)` : ''}`
      if (ok.length < 8) answer += `; ${describe(outcomes.find((outcome) => outcome.status === 'rejected')!)}`
      await sleep(500)
    }
    return { 'eight calls took ms': rounds.join(' / '), answer }
  },
}

/** Flashblock messages of the stream at /flashblocks?encoding=json: the transaction hashes in their receipts. */
function hashesOf(data: Buffer, into: Set<string>) {
  const message = JSON.parse(data.toString('utf8')) as { metadata?: { receipts?: Record<string, unknown> } }
  for (const hash of Object.keys(message.metadata?.receipts ?? {})) into.add(hash.toLowerCase())
}

const streamSlowReaders: Scenario = {
  name: 'stream-slow-readers',
  fault: 'the flashblocks stream with 50 readers that never read, 100 tx/s',
  async run({ target, signal, begin }) {
    const tokenAddress = await deployToken(target)
    const slow: Peer[] = []
    for (let i = 0; i < 50; i++) {
      const peer = await openWs(target, '/flashblocks')
      peer.ws.pause()
      slow.push(peer)
    }
    const full = await openWs(target, '/flashblocks?encoding=json')
    const seen = new Set<string>()
    const arrivals: number[] = []
    full.ws.on('message', (data: Buffer) => {
      arrivals.push(performance.now())
      hashesOf(data, seen)
    })
    begin()
    const t0 = performance.now()
    const traffic = await startTraffic(target, tokenAddress, 100, signal)
    await hold(SECONDS * 1000, signal)
    const sends = await traffic.stop()
    const seconds = (performance.now() - t0) / 1000
    // The last transactions' flashblock, and a slow one or two, before counting.
    await hold(2000, signal)
    const missed = [...traffic.acknowledged].filter((hash) => !seen.has(hash)).length
    const left = await leave(target, slow)
    full.ws.terminate()
    return {
      'acknowledged txs': sends.acknowledged,
      'missed by the full reader': missed,
      'frames/s at the full reader': round(arrivals.filter((at) => at - t0 < seconds * 1000).length / seconds, 2),
      'full reader max gap ms': maxGap(arrivals),
      'slow readers still open': left['connections still open'],
      'slow readers closed': left['closed by the server'],
      'close codes': left['close codes'],
      'sends timed out (5 s)': sends.timedOut,
    }
  },
}

const filterFlood: Scenario = {
  name: 'filter-flood',
  fault: '100,000 filters never polled under 20 tx/s',
  async run({ target, signal, begin }) {
    const tokenAddress = await deployToken(target)
    begin()
    const kinds = [
      { method: 'eth_newFilter', params: [{ address: tokenAddress }] },
      { method: 'eth_newPendingTransactionFilter', params: [] },
      { method: 'eth_newBlockFilter', params: [] },
    ]
    let created = 0
    const errors = new Map<string, number>()
    const traffic = await startTraffic(target, tokenAddress, 20, signal)
    const t0 = performance.now()
    // 100 batches of 1,000 (the default longest batch); each answer is read, the filters never are.
    for (let batch = 0; batch < 100 && !signal.aborted && performance.now() - t0 < SECONDS * 1000; batch++) {
      const body = Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: '2.0', id: i, ...kinds[(batch * 1000 + i) % 3]! }))
      try {
        const response = await fetch(target.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.any([AbortSignal.timeout(30_000), signal]),
        })
        const answers = (await response.json()) as
          | { result?: string; error?: { code: number; message: string } }[]
          | { error: { code: number; message: string } }
        for (const answer of Array.isArray(answers) ? answers : [answers]) {
          if (answer.error === undefined) created++
          else {
            const key = `${answer.error.code} ${answer.error.message.slice(0, 60)}`
            errors.set(key, (errors.get(key) ?? 0) + 1)
          }
        }
      } catch (error) {
        const key = `no answer (${error instanceof Error ? error.message.slice(0, 40) : error})`
        errors.set(key, (errors.get(key) ?? 0) + 1000)
      }
    }
    const createdSeconds = (performance.now() - t0) / 1000
    const rssAtCreated = alive(target) ? round(rssMB(target.pid)) : Number.NaN
    await hold(SECONDS * 1000 - (performance.now() - t0), signal)
    const rssAtEnd = alive(target) ? round(rssMB(target.pid)) : Number.NaN
    const holdSeconds = (performance.now() - t0) / 1000 - createdSeconds
    const sends = await traffic.stop()
    return {
      'filters created': created,
      'creation s': round(createdSeconds),
      refused: errors.size === 0 ? 'none' : [...errors].map(([key, count]) => `${count}× ${key}`).join(', '),
      'RSS growth MB/min after creation': holdSeconds > 5 ? round(((rssAtEnd - rssAtCreated) * 60) / holdSeconds) : undefined,
      'sends acknowledged': sends.acknowledged,
      'sends timed out (5 s)': sends.timedOut,
    }
  },
}

const subscriptionFlood: Scenario = {
  name: 'subscription-flood',
  fault: '10,000 subscriptions on one connection, under 20 tx/s',
  async run({ target, signal, begin }) {
    const tokenAddress = await deployToken(target)
    const peer = await openWs(target)
    let accepted = 0
    const errors = new Map<string, number>()
    let answered = 0
    let notifications = 0
    peer.ws.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as { id?: number; result?: string; error?: { code: number; message: string } }
      if (message.id === undefined) {
        notifications++
        return
      }
      answered++
      if (message.error === undefined) accepted++
      else {
        const key = `${message.error.code} ${message.error.message.slice(0, 60)}`
        errors.set(key, (errors.get(key) ?? 0) + 1)
      }
    })
    begin()
    const t0 = performance.now()
    // Half newFlashblocks, half pendingLogs of the token; the connection reads everything it gets.
    for (let i = 0; i < 10_000 && peer.closed === undefined; i++) {
      const params = i % 2 === 0 ? ['newFlashblocks'] : ['pendingLogs', { address: tokenAddress }]
      peer.ws.send(JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'eth_subscribe', params }))
      if (i % 500 === 499) await sleep(10)
    }
    while (answered < 10_000 && peer.closed === undefined && !signal.aborted && performance.now() - t0 < SECONDS * 1000) await sleep(50)
    const subscribeSeconds = round((performance.now() - t0) / 1000)
    const traffic = await startTraffic(target, tokenAddress, 20, signal)
    await hold(SECONDS * 1000 - (performance.now() - t0), signal)
    const sends = await traffic.stop()
    const closed = peer.closed
    peer.ws.terminate()
    return {
      'subscriptions accepted': accepted,
      refused: errors.size === 0 ? 'none' : [...errors].map(([key, count]) => `${count}× ${key}`).join(', '),
      'subscribe s': subscribeSeconds,
      'notifications received': notifications,
      'connection closed': closed === undefined ? 'no' : `${closed.code} ${closed.reason}`,
      'sends timed out (5 s)': sends.timedOut,
    }
  },
}

const mineHuge: Scenario = {
  name: 'mine-huge',
  fault: 'anvil_mine of 1,000,000 blocks, abandoned by its client after 10 s',
  server: { mining: 'manual' },
  async run({ target, signal, begin }) {
    begin()
    const client = new AbortController()
    const t0 = performance.now()
    const mining = timed(async () => {
      const response = await fetch(target.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: [toHex(1_000_000)] }),
        signal: AbortSignal.any([client.signal, signal]),
      })
      return (await response.text()).slice(0, 120)
    })
    const blockNumber = async () => {
      try {
        return Number(await call<Hex>(target, 'eth_blockNumber', [], 5000))
      } catch {
        return Number.NaN
      }
    }
    const abandonAfter = Math.min(10_000, (SECONDS * 1000) / 3)
    await hold(abandonAfter, signal)
    const answeredBefore = await Promise.race([mining.then(() => true), sleep(0).then(() => false)])
    client.abort()
    const atAbandon = await blockNumber()
    const abandonedAt = performance.now()
    await hold(SECONDS * 1000 - (performance.now() - t0), signal)
    const atEnd = await blockNumber()
    const rate = (atEnd - atAbandon) / ((performance.now() - abandonedAt) / 1000)
    const { outcome } = await mining
    return {
      'answered within 10 s': answeredBefore ? `yes: ${outcome.status === 'fulfilled' ? outcome.value : describe(outcome)}` : 'no',
      'head when the client left': atAbandon,
      'head at the end': atEnd,
      'blocks/s after the client left': round(rate),
      'kept mining after the client left': Number.isNaN(atEnd) ? 'unknown (no answer)' : atEnd > atAbandon,
      'projected time for 1M blocks min': rate > 0 ? round(1_000_000 / rate / 60) : undefined,
    }
  },
}

const pingFlood: Scenario = {
  name: 'ping-flood',
  fault: '500,000 WebSocket pings whose pongs are never read',
  async run({ target, signal, begin }) {
    const peer = await openWs(target)
    peer.ws.pause()
    begin()
    const t0 = performance.now()
    let pinged = 0
    // As fast as the socket takes them; once the client's own buffer passes 1 MB the server is not reading.
    let stalledMs = 0
    while (pinged < 500_000 && peer.closed === undefined && !signal.aborted && performance.now() - t0 < SECONDS * 1000) {
      if (peer.ws.bufferedAmount > 1024 * 1024) {
        await sleep(20)
        stalledMs += 20
        continue
      }
      for (let i = 0; i < 1000; i++) peer.ws.ping()
      pinged += 1000
      await sleep(0)
    }
    const pingSeconds = round((performance.now() - t0) / 1000)
    await hold(SECONDS * 1000 - (performance.now() - t0), signal)
    const states = alive(target) ? socketStates(target.port, [peer.localPort]) : undefined
    let pongs = 0
    peer.ws.on('pong', () => pongs++)
    peer.ws.resume()
    await sleep(2000)
    const closed = peer.closed
    peer.ws.terminate()
    return {
      'pings written': pinged,
      'writing s': pingSeconds,
      'client blocked by back-pressure s': round(stalledMs / 1000),
      'pongs read in 2 s after resuming': pongs,
      'connection state before resuming': states === undefined ? 'server gone' : states.established === 1 ? 'open' : 'closed by the server',
      'close code': closed === undefined ? 'none' : `${closed.code} ${closed.reason}`,
    }
  },
}

const foreignOrigin: Scenario = {
  name: 'foreign-origin',
  fault: 'read-only test-control methods asked with Origin: http://evil.example',
  async run({ target, begin }) {
    begin()
    const outcome: Outcome = {}
    for (const method of ['anvil_nodeInfo', 'anvil_metadata', 'hardhat_metadata', 'anvil_getAutomine', 'hardhat_getAutomine']) {
      const [answer] = await Promise.allSettled([call(target, method, [], 10_000, { origin: 'http://evil.example' })])
      outcome[method] = describe(answer!).replace(/^answered .*/, 'answered')
    }
    return outcome
  },
}

/** Gzip of `megabytes` MB of zeros, compressed in a stream so the bench never holds the inflated bytes. */
async function gzipBomb(megabytes: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 })
  const parts: Buffer[] = []
  gzip.on('data', (part: Buffer) => parts.push(part))
  const done = new Promise((resolve) => gzip.once('end', resolve))
  const chunk = Buffer.alloc(1024 * 1024)
  for (let i = 0; i < megabytes; i++) {
    if (!gzip.write(chunk)) await new Promise((resolve) => gzip.once('drain', resolve))
  }
  gzip.end()
  await done
  return Buffer.concat(parts)
}

const loadState: Scenario = {
  name: 'load-state',
  fault: 'anvil_loadState of {"accounts":{"__proto__":…}} and of a gzip bomb',
  async run({ target, begin }) {
    const bomb = await gzipBomb(300)
    begin()
    const proto = `0x${Buffer.from('{"accounts":{"__proto__":{"nonce":1,"balance":"0x1","code":"0x","storage":{}}}}').toString('hex')}`
    const [protoAnswer] = await Promise.allSettled([call(target, 'anvil_loadState', [proto], 10_000)])
    await sleep(1000)
    const bombs: string[] = []
    let bombAnswer = ''
    for (let i = 0; i < 3; i++) {
      const { ms, outcome } = await timed(() => call(target, 'anvil_loadState', [`0x${bomb.toString('hex')}`], 30_000))
      bombs.push(String(ms))
      bombAnswer = describe(outcome)
      await sleep(1000)
    }
    return {
      '__proto__ dump': describe(protoAnswer!),
      'gzip bomb (300 MB of zeros)': `${round(bomb.length / 1024)} KiB compressed: ${bombAnswer}`,
      'bomb answers ms': bombs.join(' / '),
    }
  },
}

/** An HTTP/1.1 request written on a raw socket that is then never read. */
function unreadRequest(target: Target, body: string): Promise<{ socket: Socket; localPort: number }> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ port: target.port, host: '127.0.0.1' }, () => {
      socket.write(
        `POST / HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      )
      socket.pause()
      resolve({ socket, localPort: socket.localPort! })
    })
    socket.once('error', reject)
  })
}

const httpUnread: Scenario = {
  name: 'http-unread',
  fault: '10 HTTP clients ask for a 4 MB answer and read none of it',
  async run({ target, signal, begin }) {
    const returner = await deployCode(target, RETURNER)
    begin()
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ to: returner, data: word(2 * 1024 * 1024), gas: toHex(40_000_000) }, 'latest'],
    })
    const clients = await Promise.all(Array.from({ length: 10 }, () => unreadRequest(target, body)))
    await hold(SECONDS * 1000, signal)
    const states = alive(target)
      ? socketStates(
          target.port,
          clients.map((client) => client.localPort),
        )
      : undefined
    for (const client of clients) client.socket.destroy()
    return {
      'held for s': SECONDS,
      'still connected': states?.established,
      'closed by the server': states === undefined ? undefined : states.closedByServer + states.gone,
    }
  },
}

export const scenarios: Scenario[] = [
  slowSubscribers,
  simulateBomb,
  simulateTransfers,
  traceBomb,
  traceDefault,
  accessList,
  bigCalls,
  streamSlowReaders,
  filterFlood,
  subscriptionFlood,
  mineHuge,
  pingFlood,
  foreignOrigin,
  loadState,
  httpUnread,
]
