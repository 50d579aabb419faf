// flashchain's benchmark: the same workloads against flashchain, anvil and Hardhat 3 in one run, on 127.0.0.1.
// `npm run bench` installs the peers (bench/package.json) and runs this file; bench/README.md says how to read it.
// Settings (environment): BENCH_SECONDS (measured seconds per workload, default 5), BENCH_WARMUP (default 3),
// BENCH_CONNECTIONS (default "8,64"), BENCH_PEERS (default "flashchain,anvil,hardhat"), BENCH_TXS (pre-signed
// transactions per eth_sendRawTransaction run, default 6400), BENCH_PROBES (pre-confirmation samples, default 100),
// BENCH_WORKLOADS (workload ids to run, default all; flashchain's own measurements run only with all of them),
// BENCH_REST (s of quiet after the reads before RSS is sampled at rest, default 30), BENCH_PASSES (passes over the
// read workloads, default 2), BENCH_MINE_BLOCKS (empty blocks mined by one anvil_mine / hardhat_mine, default 10000),
// BENCH_FLASHCHAIN (an installed package's flashchain command, measured instead of this repository's).
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { pathToFileURL } from 'node:url'

import type { Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'

import {
  addressStream,
  balanceOfData,
  benchAccounts,
  deployToken,
  dev,
  fund,
  SINK,
  signTransfers,
  token,
  transferData,
  type Mining,
} from './chain.ts'
import { openConnection, percentile, rpc, rpcBody, runLoad, type Connection } from './http.ts'
import { measureEvmRuns, measurePreconfirmation, type EvmRuns, type Preconfirmation } from './flashchain.ts'
import { renderTable, renderSummary, writeChart } from './report.ts'
import {
  BENCH,
  cpuSeconds,
  INSTALLED_FLASHCHAIN,
  killAllNow,
  ROOT,
  rssMB,
  sleep,
  startServer,
  stopAll,
  stopServer,
  threadCount,
  unavailable,
  type PeerName,
  type Server,
} from './servers.ts'

const env = process.env
const SECONDS = Number(env.BENCH_SECONDS ?? 5)
// Three seconds, not one: V8 goes on compiling flashchain's EVM for about two seconds of load. On a fresh server,
// ERC20 estimates @8 ran at 6.3–6.9k req/s in the first second and 11.7–12.1k in the second (the compiler's threads
// alone used 30–86 µs per request), then 15–21k from the third on; Hardhat's EVM is native, and it was steady at
// 16–17k from its second second. A one-second warm-up measured the second second too.
const WARMUP = Number(env.BENCH_WARMUP ?? 3)
/**
 * Passes over the read workloads, each on fresh servers, the peers in one order and then the other; a cell reports
 * its fastest pass. On this 2-core machine one run of a cell could come out up to 10 % slower than the next for
 * any peer (threads preempting each other, the load generator among them), and that noise only ever slows a run.
 */
const PASSES = Number(env.BENCH_PASSES ?? 2)
const CONNECTIONS = (env.BENCH_CONNECTIONS ?? '8,64').split(',').map(Number)
const TXS = Number(env.BENCH_TXS ?? 6400)
const PROBES = Number(env.BENCH_PROBES ?? 100)
/** Longest wait for sent transactions to reach `latest` after a transaction run, s. */
const DRAIN = Number(env.BENCH_DRAIN ?? 15)
/** Quiet time after the read workloads before the resident set is sampled again, at rest, s. */
const REST = Number(env.BENCH_REST ?? 30)
/** Seconds a fresh server rests before its first RSS sample, before any request but the start's eth_chainId. */
const START_REST = 5
/** Seconds into that quiet time at which the resident set is also sampled. */
const REST_SAMPLES = [5, 15].filter((seconds) => seconds < REST)
const STARTUP_SAMPLES = 3
const MINE_BLOCKS = Number(env.BENCH_MINE_BLOCKS ?? 10_000)
/** Snapshot, change, block and revert cycles timed after the blocks are mined. */
const REVERT_CYCLES = 100
const ALL_PEERS: PeerName[] = ['flashchain', 'anvil', 'hardhat']
const ONLY = env.BENCH_WORKLOADS?.split(',')
const PEERS = (env.BENCH_PEERS ?? ALL_PEERS.join(',')).split(',').filter((name): name is PeerName => ALL_PEERS.includes(name as PeerName))
/** ETH each transaction sender gets: 800 transfers at 100 gwei × 21000 cost 1.7 ETH. */
const FUNDING = 20n * 10n ** 18n

export type WorkloadId =
  | 'getCode-contract'
  | 'getCode-eoa'
  | 'estimateGas-transfer'
  | 'estimateGas-erc20'
  | 'estimateGas-erc20-repeated'
  | 'call-balanceOf'
  | 'sendRawTransaction'

type Workload = {
  id: WorkloadId
  title: string
  /** The request stream of one run: worker index → next body (undefined: that worker is done). */
  stream(context: Context, connections: number): (worker: number) => string | undefined
  /** Checks one answer before the run, so a run of errors is never reported as throughput. */
  check?(context: Context, result: unknown): string | undefined
}

type Context = { token: Hex; signed: Map<number, Hex[][]> }

const allWorkloads: Workload[] = [
  {
    id: 'getCode-contract',
    title: 'eth_getCode (contract)',
    stream: (c) => {
      const body = rpcBody('eth_getCode', [c.token, 'latest'])
      return () => body
    },
    check: (_c, result) => (result === token.deployedBytecode ? undefined : 'not the token bytecode'),
  },
  {
    id: 'getCode-eoa',
    title: 'eth_getCode (EOA)',
    stream: () => {
      const body = rpcBody('eth_getCode', [dev.address, 'latest'])
      return () => body
    },
    check: (_c, result) => (result === '0x' ? undefined : `expected 0x, got ${String(result).slice(0, 20)}`),
  },
  {
    id: 'estimateGas-transfer',
    title: 'eth_estimateGas (ETH transfer)',
    stream: () => {
      // A new value (in wei) on every request, so each is a real estimate and not an answer-cache hit.
      let value = 0
      return () => rpcBody('eth_estimateGas', [{ from: dev.address, to: SINK, value: `0x${(++value).toString(16)}` }, 'latest'])
    },
    // Hardhat answers 21001 (its estimator stops one above the minimum); anything near 21000 is right.
    check: (_c, result) => {
      const gas = BigInt(result as Hex)
      return gas >= 21000n && gas <= 21100n ? undefined : `expected about 21000, got ${gas}`
    },
  },
  {
    id: 'estimateGas-erc20',
    title: 'eth_estimateGas (ERC20, varied)',
    stream: (c) => {
      // A new recipient and amount on every request: no two requests are alike, so no cache can answer.
      const next = addressStream(0x5eed)
      let amount = 1n
      return () => {
        amount = (amount * 6364136223846793005n + 1442695040888963407n) % 1_000_000_000_000_000n
        return rpcBody('eth_estimateGas', [{ from: dev.address, to: c.token, data: transferData(next(), amount + 1n) }, 'latest'])
      }
    },
    check: (_c, result) => {
      const gas = BigInt(result as Hex)
      return gas > 40_000n && gas < 80_000n ? undefined : `implausible ERC20 transfer estimate ${gas}`
    },
  },
  {
    id: 'estimateGas-erc20-repeated',
    title: 'eth_estimateGas (ERC20, repeated)',
    stream: (c) => {
      // The same request every time, as a wallet re-estimates its pending transfer every block: an answer cache
      // keyed by (state, request) may answer it. The varied workload above must never hit one.
      const body = rpcBody('eth_estimateGas', [{ from: dev.address, to: c.token, data: transferData(SINK, 12345n) }, 'latest'])
      return () => body
    },
    check: (_c, result) => {
      const gas = BigInt(result as Hex)
      return gas > 40_000n && gas < 80_000n ? undefined : `implausible ERC20 transfer estimate ${gas}`
    },
  },
  {
    id: 'call-balanceOf',
    title: 'eth_call (ERC20 balanceOf)',
    stream: (c) => {
      // Every 8th request asks for dev account 0's (non-zero) balance, the others for fresh addresses; those for
      // account 0 come from a fresh caller each, so that no two requests are alike and no cache can answer.
      const next = addressStream(0xba1)
      let i = 0
      return () => {
        const call = i++ % 8 === 0 ? { from: next(), to: c.token, data: balanceOfData(dev.address) } : { to: c.token, data: balanceOfData(next()) }
        return rpcBody('eth_call', [call, 'latest'])
      }
    },
    check: (_c, result) =>
      typeof result === 'string' && result.length === 66 ? undefined : `expected a uint256, got ${String(result).slice(0, 80)}`,
  },
  {
    id: 'sendRawTransaction',
    title: 'eth_sendRawTransaction',
    stream: (c, connections) => {
      // Worker i sends account i's pre-signed transfers in nonce order, one at a time: no nonce gaps, no queue.
      const signed = c.signed.get(connections)!
      const sent = new Array<number>(connections).fill(0)
      return (worker) => {
        const raw = signed[worker]![sent[worker]!]
        if (raw === undefined) return undefined
        sent[worker]!++
        return rpcBody('eth_sendRawTransaction', [raw])
      }
    },
  },
]

const workloads = ONLY === undefined ? allWorkloads : allWorkloads.filter((w) => ONLY.includes(w.id))
if (workloads.length === 0) throw new Error(`BENCH_WORKLOADS names none of ${allWorkloads.map((w) => w.id).join(', ')}`)

export type RunResult = {
  reqPerSec: number
  p50: number
  p99: number
  /** Server CPU (user + system, all threads) per answered request, µs. */
  cpuUsPerReq: number
  /** Load generator CPU per answered request, µs (it shares the two cores). */
  clientCpuUsPerReq: number
  ok: number
  errors: number
  firstError?: string
  seconds: number
  /** sendRawTransaction: transactions accepted (warm-up included), then found in `latest` afterwards. */
  sent?: number
  included?: number
  /** Wait after the last send until all were in `latest` (or BENCH_DRAIN ran out), s. */
  drainSeconds?: number
  /** included ÷ (sending time + drain time): how fast the chain took transactions into blocks. */
  includedPerSec?: number
  sendSeconds?: number
  server?: string
  /** Read workloads: req/s of each pass, in the order run; the other figures are the fastest pass's. */
  passes?: number[]
}

export type PeerInfo = {
  version: string
  startupMs: number[]
  startupMedianMs: number
  rssMB: Record<string, number>
  peakRssMB: Record<string, number>
  threads: Record<string, number>
  mode: string
  /** One anvil_mine (hardhat_mine for Hardhat) of BENCH_MINE_BLOCKS empty blocks: request → answer, ms. */
  mineMs?: number
  /** evm_revert after those blocks, to a snapshot taken before a balance change and a block: median ms. */
  revertMs?: number
  skipped?: string
}

const results: Record<string, Partial<Record<PeerName, RunResult>>> = {}
const peers: Partial<Record<PeerName, PeerInfo>> = {}
const notes: string[] = []
let preconfirmation: Preconfirmation | undefined
let evmRuns: EvmRuns | undefined

/** Progress lines on stderr with BENCH_DEBUG=1. */
function debug(line: string) {
  if (env.BENCH_DEBUG !== undefined) process.stderr.write(`${new Date().toISOString().slice(11, 23)} ${line}\n`)
}

function note(line: string) {
  if (notes.includes(line)) return
  notes.push(line)
  console.log(`  note: ${line}`)
}

function key(workload: WorkloadId, connections: number) {
  return `${workload}@${connections}`
}

function peakRss(pid: number): number {
  const match = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match === null ? Number.NaN : Number(match[1]) / 1024
}

/**
 * Waits (up to 5 s) until the server's own CPU use falls below a tenth of a core over 200 ms, so that what it does in
 * the background after a start or a deployment (loading workers, JIT compilation, GC) is not measured as part of a
 * workload. Every peer gets the same wait.
 */
async function untilIdle(server: Server) {
  const deadline = performance.now() + 5000
  while (performance.now() < deadline) {
    const before = cpuSeconds(server.pid)
    await sleep(200)
    if (cpuSeconds(server.pid) - before < 0.02) return
  }
}

async function measure(server: Server, workload: Workload, context: Context, connections: number): Promise<RunResult> {
  const isTx = workload.id === 'sendRawTransaction'
  let cpu0 = 0
  let cpu1 = 0
  let client0 = process.cpuUsage()
  let client1 = client0
  const next = workload.stream(context, connections)
  let warmupSeconds = 0
  if (isTx) {
    // The transaction runs end when the pre-signed transactions do, so their warm-up is a share of them (the
    // first 5% of each sender's), sent before the measured run continues with the rest.
    const warmup = Math.ceil((0.05 * TXS) / connections)
    const sent = new Array<number>(connections).fill(0)
    warmupSeconds = (
      await runLoad({
        port: server.port,
        connections,
        warmupSeconds: 0,
        seconds: 60,
        next: (worker) => (sent[worker]!++ < warmup ? next(worker) : undefined),
      })
    ).totalElapsed
  }
  const load = await runLoad({
    port: server.port,
    connections,
    warmupSeconds: isTx ? 0 : WARMUP,
    seconds: SECONDS,
    next,
    onWindowStart: () => {
      cpu0 = cpuSeconds(server.pid)
      client0 = process.cpuUsage()
    },
    onWindowEnd: () => {
      cpu1 = cpuSeconds(server.pid)
      client1 = process.cpuUsage(client0)
    },
  })
  const answered = load.ok + load.errors
  return {
    reqPerSec: load.ok / load.elapsed,
    p50: percentile(load.latencies, 50),
    p99: percentile(load.latencies, 99),
    cpuUsPerReq: answered === 0 ? Number.NaN : ((cpu1 - cpu0) * 1e6) / answered,
    clientCpuUsPerReq: answered === 0 ? Number.NaN : (client1.user + client1.system) / answered,
    ok: load.ok,
    errors: load.errors,
    firstError: load.firstError,
    seconds: load.elapsed,
    sendSeconds: warmupSeconds + load.totalElapsed,
    server: server.label,
  }
}

/** After a transaction run: waits until every accepted transaction is in `latest` (nonces), up to BENCH_DRAIN s. */
async function checkIncluded(
  connection: Connection,
  accounts: PrivateKeyAccount[],
  expected: number[],
): Promise<{ included: number; drainSeconds: number }> {
  const t0 = performance.now()
  let included = 0
  const total = expected.reduce((a, b) => a + b, 0)
  for (;;) {
    included = 0
    for (const [i, account] of accounts.entries()) {
      const nonce = Number(await rpc<Hex>(connection, 'eth_getTransactionCount', [account.address, 'latest']))
      included += Math.min(nonce, expected[i]!)
    }
    if (included >= total || performance.now() - t0 > DRAIN * 1000) break
    await sleep(250)
  }
  return { included, drainSeconds: (performance.now() - t0) / 1000 }
}

async function sentCounts(connection: Connection, accounts: PrivateKeyAccount[]): Promise<number[]> {
  const counts: number[] = []
  for (const account of accounts) counts.push(Number(await rpc<Hex>(connection, 'eth_getTransactionCount', [account.address, 'pending'])))
  return counts
}

async function runWorkload(server: Server, workload: Workload, context: Context, connections: number, mining: Mining, senders?: PrivateKeyAccount[]) {
  const control = openConnection(server.port)
  try {
    const probe = workload.stream(context, connections)(0)
    if (workload.check !== undefined && probe !== undefined) {
      const answer = JSON.parse(await control.post(probe)) as { result?: unknown; error?: { message: string } }
      const problem = answer.error !== undefined ? answer.error.message : workload.check(context, answer.result)
      if (problem !== undefined) {
        note(`${server.label}: ${workload.title} answers wrongly (${problem}); run skipped`)
        return
      }
    }
    await untilIdle(server)
    debug(`${server.label}: ${workload.id} @${connections} starts`)
    const result = await measure(server, workload, context, connections)
    debug(`${server.label}: ${workload.id} @${connections} measured`)
    if (workload.id === 'sendRawTransaction' && senders !== undefined) {
      // What the server took: each sender's pending nonce (flashchain counts its pool there, as geth does).
      const accepted = await sentCounts(control, senders)
      result.sent = accepted.reduce((a, b) => a + b, 0)
      debug(`${server.label}: ${result.sent} accepted; waiting for latest`)
      const { included, drainSeconds } = await checkIncluded(control, senders, accepted)
      result.included = included
      result.drainSeconds = drainSeconds
      result.includedPerSec = included / (result.sendSeconds! + drainSeconds)
      if (included < result.sent) {
        let pool = ''
        try {
          const status = await rpc<{ pending: Hex; queued: Hex }>(control, 'txpool_status')
          pool = `; txpool_status: ${Number(status.pending)} pending, ${Number(status.queued)} queued`
        } catch {
          // flashchain has no txpool_status
        }
        note(
          `${server.label}: ${result.sent - included} of ${result.sent} accepted transactions @${connections} were not in latest ${drainSeconds.toFixed(0)} s after the last send (${mining} mining${pool})`,
        )
      }
    }
    if (result.errors > 0) note(`${server.label}: ${workload.title} @${connections}: ${result.errors} errors, first: ${result.firstError}`)
    const cell = (results[key(workload.id, connections)] ??= {})
    const earlier = cell[server.name]
    const passes = [...(earlier?.passes ?? []), result.reqPerSec]
    cell[server.name] = { ...(earlier === undefined || result.reqPerSec > earlier.reqPerSec ? result : earlier), passes }
    console.log(
      `  ${server.label.padEnd(22)} ${workload.title.padEnd(32)} @${String(connections).padEnd(3)} ${result.reqPerSec.toFixed(0).padStart(7)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms  cpu ${result.cpuUsPerReq.toFixed(0)} µs/req` +
        (result.sent !== undefined
          ? `  (${result.included}/${result.sent} in latest ${result.drainSeconds!.toFixed(1)} s after the last send: ${result.includedPerSec!.toFixed(0)} tx/s into blocks)`
          : ''),
    )
  } finally {
    control.close()
  }
}

async function measureStartup(name: PeerName): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < STARTUP_SAMPLES; i++) {
    const server = await startServer(name, { mining: 'interval' })
    samples.push(server.startupMs)
    await stopServer(server)
  }
  return samples
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

function version(name: PeerName): string {
  try {
    if (name === 'flashchain' && INSTALLED_FLASHCHAIN !== undefined) {
      const pkg = JSON.parse(readFileSync(new URL('../package.json', pathToFileURL(INSTALLED_FLASHCHAIN)), 'utf8')) as { version: string }
      return `${pkg.version} (installed package)`
    }
    if (name === 'flashchain') {
      const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }
      const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
      const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).trim() !== ''
      return `${pkg.version} (${commit}${dirty ? ', src/ modified' : ''})`
    }
    if (name === 'anvil') {
      const out = execFileSync(`${BENCH}node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil`, ['--version'], { encoding: 'utf8' })
      return out.split('\n')[0]!.replace(/^anvil Version: /, '')
    }
    const hardhat = JSON.parse(readFileSync(`${BENCH}node_modules/hardhat/package.json`, 'utf8')) as { version: string }
    const edr = JSON.parse(readFileSync(`${BENCH}node_modules/@nomicfoundation/edr/package.json`, 'utf8')) as { version: string }
    return `${hardhat.version} (EDR ${edr.version})`
  } catch (error) {
    return `unknown (${error instanceof Error ? error.message : error})`
  }
}

function recordPeer(name: PeerName, info: Partial<PeerInfo>) {
  const current = (peers[name] ??= {
    version: version(name),
    startupMs: [],
    startupMedianMs: Number.NaN,
    rssMB: {},
    peakRssMB: {},
    threads: {},
    mode: '',
  })
  Object.assign(current, info)
}

function sample(server: Server, label: string) {
  const info = peers[server.name]!
  info.rssMB[label] = rssMB(server.pid)
  info.peakRssMB[label] = peakRss(server.pid)
  info.threads[label] = threadCount(server.pid)
}

/**
 * Samples a server resting after a load, at each of `at` s after it ended. What it keeps once the load has passed
 * (flashchain gives memory back when quiet, src/runtime/memoryTrim.ts, and idle execution workers exit); every peer waits the
 * same.
 */
async function sampleAtRest(server: Server, load: string, at: number[]) {
  let waited = 0
  for (const seconds of at) {
    await sleep((seconds - waited) * 1000)
    waited = seconds
    sample(server, seconds === REST ? `at rest after ${load}` : `${seconds} s after ${load}`)
  }
}

const txWorkload = workloads.find((w) => w.id === 'sendRawTransaction')
const readWorkloads = workloads.filter((w) => w !== txWorkload)

// flashchain serves the reads with manual mining (nothing runs beside the requests, as on an idle automining
// peer) and takes transactions with its default interval mining (200 ms flashblocks, 2 s blocks), which
// executes what arrives, as the peers' automine does.
const readMiningOf = (name: PeerName): Mining => (name === 'flashchain' ? 'manual' : 'auto')
const txMiningOf = (name: PeerName): Mining => (name === 'flashchain' ? 'interval' : 'auto')
const labelOf = (name: PeerName, mining: Mining) => (name === 'flashchain' ? `flashchain (${mining})` : name)

/** One pass over the read workloads on a fresh server; the first pass also samples its memory, at rest too. */
async function benchReads(name: PeerName, context: Context, pass: number) {
  console.log(`\n${name}: ${peers[name]!.version}${PASSES > 1 ? `, read workloads, pass ${pass + 1} of ${PASSES}` : ''}`)
  const readMining = readMiningOf(name)
  const reads = await startServer(name, { mining: 'manual', label: labelOf(name, readMining) })
  try {
    // Before any call: what the server holds at rest once its start is over (flashchain's first memory trim, and no
    // execution worker yet, which the token's deploy below starts).
    if (pass === 0) {
      await sleep(START_REST * 1000)
      sample(reads, 'at rest after start')
    }
    const control = openConnection(reads.port)
    context.token = await deployToken(control, readMining)
    control.close()
    if (pass === 0) sample(reads, 'after the token deploy')
    for (const workload of readWorkloads) for (const connections of CONNECTIONS) await runWorkload(reads, workload, context, connections, readMining)
    if (pass === 0) {
      sample(reads, 'after reads')
      await sampleAtRest(reads, 'reads', [...REST_SAMPLES, REST])
    }
  } finally {
    await stopServer(reads)
  }
}

/**
 * Many empty blocks in one request, a common step of test suites (anvil_mine; hardhat_mine for Hardhat), on a fresh
 * server; the head must have moved by exactly that many blocks.
 */
async function measureMining(name: PeerName) {
  const server = await startServer(name, { mining: 'manual', label: labelOf(name, readMiningOf(name)) })
  try {
    const control = openConnection(server.port)
    const before = BigInt(await rpc<Hex>(control, 'eth_blockNumber'))
    const started = performance.now()
    await rpc(control, name === 'hardhat' ? 'hardhat_mine' : 'anvil_mine', [`0x${MINE_BLOCKS.toString(16)}`])
    const mineMs = performance.now() - started
    const after = BigInt(await rpc<Hex>(control, 'eth_blockNumber'))
    if (after - before !== BigInt(MINE_BLOCKS)) throw new Error(`mined ${after - before} blocks, asked for ${MINE_BLOCKS}`)
    // The step a test suite repeats before each test: back to a snapshot, here one taken before a change and a block.
    const reverts: number[] = []
    for (let cycle = 0; cycle < REVERT_CYCLES; cycle++) {
      const id = await rpc<Hex>(control, 'evm_snapshot')
      await rpc(control, name === 'hardhat' ? 'hardhat_setBalance' : 'anvil_setBalance', [SINK, `0x${(cycle + 1).toString(16)}`])
      await rpc(control, 'evm_mine')
      const reverting = performance.now()
      const reverted = await rpc<boolean>(control, 'evm_revert', [id])
      reverts.push(performance.now() - reverting)
      if (reverted !== true) throw new Error(`evm_revert answered ${reverted}`)
    }
    control.close()
    const revertMs = percentile(
      reverts.sort((a, b) => a - b),
      50,
    )
    recordPeer(name, { mineMs, revertMs })
    console.log(
      `  ${server.label.padEnd(22)} ${MINE_BLOCKS} empty blocks in one ${name === 'hardhat' ? 'hardhat_mine' : 'anvil_mine'}: ${mineMs.toFixed(0)} ms; evm_revert after them: ${revertMs.toFixed(1)} ms (median of ${REVERT_CYCLES})`,
    )
  } catch (error) {
    note(`${name}: mining ${MINE_BLOCKS} blocks (and reverts after them) not measured: ${error instanceof Error ? error.message : error}`)
  } finally {
    await stopServer(server)
  }
}

/** The rest of a peer's runs: transactions, and flashchain's own measurements. */
async function benchPeer(
  name: PeerName,
  context: Context,
  senders: Map<number, PrivateKeyAccount[]>,
  background: { probes: PrivateKeyAccount; sync: PrivateKeyAccount; load: PrivateKeyAccount[] },
) {
  console.log(`\n${name}: ${peers[name]!.version}`)
  const isFlashchain = name === 'flashchain'
  const everything = ONLY === undefined
  const txMining = txMiningOf(name)
  const label = (mining: Mining) => labelOf(name, mining)

  if (isFlashchain && everything) {
    const latency = await startServer(name, { mining: 'interval', label: label('interval') })
    try {
      const control = openConnection(latency.port)
      await fund(control, 'interval', [background.probes.address, background.sync.address, ...background.load.map((a) => a.address)], FUNDING)
      control.close()
      console.log('  pre-confirmation latency (200 ms flashblocks): idle, eth_sendRawTransactionSync, then under 200 tx/s …')
      preconfirmation = await measurePreconfirmation(latency.port, { probes: PROBES, interval: 200, accounts: background, debug })
      sample(latency, 'after pre-confirmation')
    } finally {
      await stopServer(latency)
    }
  }

  // A fresh server per transaction run, for every peer: a backlog one run leaves must not slow the next.
  for (const connections of txWorkload === undefined ? [] : CONNECTIONS) {
    const txs = await startServer(name, { mining: 'interval', label: label(txMining) })
    try {
      const control = openConnection(txs.port)
      await fund(
        control,
        txMining,
        senders.get(connections)!.map((a) => a.address),
        FUNDING,
      )
      control.close()
      debug(`${name}: ${connections} senders funded`)
      await runWorkload(txs, txWorkload!, context, connections, txMining, senders.get(connections))
      sample(txs, `after transactions @${connections}`)
      // The last load of the bench: what is left of it once it has passed.
      if (connections === CONNECTIONS.at(-1)) await sampleAtRest(txs, `transactions @${connections}`, [REST])
    } finally {
      await stopServer(txs)
    }
  }

  if (everything) await measureMining(name)

  if (isFlashchain && everything) {
    const verbose = await startServer(name, { mining: 'manual', verbose: true, label: 'flashchain (log)' })
    try {
      evmRuns = await measureEvmRuns(verbose)
    } catch (error) {
      note(`flashchain: EVM runs per estimate not measured: ${error instanceof Error ? error.message : error}`)
    } finally {
      await stopServer(verbose)
    }
  }
  recordPeer(name, {
    mode: {
      flashchain:
        "npm start's command (package.json: its node flags and bin/flashchain.js) with --ephemeral --quiet, one execution worker per spare core; reads: --mining manual; transactions and pre-confirmation: --mining interval (200 ms flashblocks, 2 s blocks)",
      anvil: 'anvil --quiet (automine)',
      hardhat: 'hardhat node (automine), request logging off (hardhat_setLoggingEnabled false)',
    }[name],
  })
}

async function main() {
  const started = performance.now()
  console.log(
    `flashchain benchmark: ${SECONDS} s per workload after ${WARMUP} s warm-up, connections ${CONNECTIONS.join(', ')}; node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}`,
  )
  const active: PeerName[] = []
  for (const name of PEERS) {
    const reason = unavailable(name)
    if (reason === undefined) active.push(name)
    else {
      recordPeer(name, { skipped: reason })
      note(`${name} skipped: ${reason}`)
    }
  }

  // Everything is signed before any clock starts. Account sets are disjoint, so the runs never share a nonce.
  const t0 = performance.now()
  const senders = new Map<number, PrivateKeyAccount[]>()
  const signed = new Map<number, Hex[][]>()
  let offset = 0
  for (const connections of CONNECTIONS) {
    const accounts = benchAccounts(offset, connections)
    offset += connections
    senders.set(connections, accounts)
    signed.set(connections, await signTransfers(accounts, Math.ceil(TXS / connections)))
  }
  const [probes, sync, ...load] = benchAccounts(1000, 6)
  const background = { probes: probes!, sync: sync!, load }
  console.log(
    `signed ${CONNECTIONS.reduce((n, c) => n + c * Math.ceil(TXS / c), 0)} transactions in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  )
  const context: Context = { token: '0x', signed }

  for (const name of active) {
    recordPeer(name, {})
    try {
      const startup = await measureStartup(name)
      recordPeer(name, { startupMs: startup, startupMedianMs: median(startup) })
      console.log(`${name}: start to first answer ${startup.map((ms) => ms.toFixed(0)).join(', ')} ms`)
    } catch (error) {
      note(`${name}: could not be started: ${error instanceof Error ? error.message : error}`)
      recordPeer(name, { skipped: 'could not be started' })
    }
  }
  const failed = (name: PeerName, error: unknown) => {
    note(`${name}: run failed: ${error instanceof Error ? (error.stack ?? error.message) : error}`)
    recordPeer(name, { skipped: `run failed: ${error instanceof Error ? error.message : error}` })
  }
  for (let pass = 0; pass < PASSES && readWorkloads.length > 0; pass++) {
    for (const name of pass % 2 === 0 ? active : [...active].reverse()) {
      if (peers[name]?.skipped !== undefined) continue
      await benchReads(name, context, pass).catch((error: unknown) => failed(name, error))
    }
  }
  for (const name of active) {
    if (peers[name]?.skipped !== undefined) continue
    await benchPeer(name, context, senders, background).catch((error: unknown) => failed(name, error))
  }

  const report = {
    date: new Date().toISOString(),
    durationSeconds: (performance.now() - started) / 1000,
    node: process.version,
    machine: {
      platform: `${os.platform()} ${os.release()}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryGB: os.totalmem() / 2 ** 30,
    },
    settings: {
      seconds: SECONDS,
      warmupSeconds: WARMUP,
      passes: PASSES,
      connections: CONNECTIONS,
      txsPerRun: TXS,
      probes: PROBES,
      drainSeconds: DRAIN,
      restSeconds: REST,
      mineBlocks: MINE_BLOCKS,
      host: '127.0.0.1',
    },
    peers,
    workloads: workloads.map((w) => ({ id: w.id, title: w.title })),
    results,
    flashchain: { preconfirmation, evmRuns },
    goals: {
      preconfirmP99Ms: 220,
      evmRunsPerErc20Estimate: 3,
      startupMs: 1000,
      rssMB: 150,
    },
    notes,
  }
  // A run of some workloads only never replaces the full figures.
  const name = ONLY === undefined ? 'latest' : 'subset'
  mkdirSync(`${BENCH}results`, { recursive: true })
  writeFileSync(`${BENCH}results/${name}.json`, `${JSON.stringify(report, null, 2)}\n`)
  console.log(`\n${renderTable(report)}\n\n${renderSummary(report)}`)
  const charts = writeChart(report, `${BENCH}results/${name}.png`)
  console.log(
    `\nwrote ${[`bench/results/${name}.json`, ...charts.map((path) => path.slice(ROOT.length))].join(', ')} (${(report.durationSeconds / 60).toFixed(1)} min)`,
  )
}

export type Report = {
  date: string
  node: string
  machine: { cpus: number; cpuModel: string }
  settings: { seconds: number; passes: number; connections: number[]; mineBlocks?: number }
  peers: Partial<Record<PeerName, PeerInfo>>
  workloads: { id: WorkloadId; title: string }[]
  results: Record<string, Partial<Record<PeerName, RunResult>>>
  flashchain: { preconfirmation?: Preconfirmation; evmRuns?: EvmRuns }
  notes: string[]
}

const onSignal = (signal: NodeJS.Signals) => {
  console.error(`\n${signal}: stopping the servers`)
  void stopAll().finally(() => process.exit(130))
}
process.on('SIGINT', onSignal)
process.on('SIGTERM', onSignal)
process.on('exit', killAllNow)

if (import.meta.main) {
  try {
    await main()
  } catch (error) {
    console.error(error)
    process.exitCode = 1
  } finally {
    await stopAll()
  }
}
