// The fork-mode benchmark, `node bench/fork.ts` (README, "Fork mode"): what anvil and flashchain, each forking an
// upstream anvil through a counting proxy, ask the upstream for a token transfer and for a swap, each on a fresh
// peer with an empty cache; then a swap again on a peer started over the cache the cold swap left (warm). Prints a
// table and writes results/fork-latest.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'

import { type ForkPeerName, ForkUnsupported, killForkPeersNow, startForkPeer, stopForkPeers } from './fork-peers.ts'
import { type Counts, type CountingProxy, startProxy } from './fork-proxy.ts'
import { runWorkload, seedUpstream, type WorkloadName, type World } from './fork-world.ts'
import { BENCH, killAllNow, startServer, stopAll, stopServer, unavailable } from './servers.ts'

const PEERS: ForkPeerName[] = ['anvil', 'flashchain']
/** The whole run stops past this; it takes well under a minute. */
const RUN_TIMEOUT_MS = 10 * 60_000
/** After a peer answers, its start's own requests may still be arriving: they count as the start's until it is quiet this long. */
const QUIET_MS = 200

type Run = {
  peer: ForkPeerName
  workload: WorkloadName
  cache: 'cold' | 'warm'
  /** Spawn to the first answered eth_chainId. */
  startupMs: number
  traffic: {
    /** What reached the upstream from spawn until the peer answered and went quiet. */
    start: Counts
    /** What reached the upstream from the workload's first request until the peer was quiet after its last. */
    workload: Counts
  }
  /** Wall time of the workload, first request to last answer. */
  workloadMs: number
}

const byMethod = (counts: Counts) =>
  Object.entries(counts.byMethod)
    .sort(([, a], [, b]) => b - a)
    .map(([method, n]) => `${method} ${n}`)
    .join(', ') || '—'

const round = (ms: number) => Math.round(ms * 10) / 10

/** The peers' cache directories (anvil's HOME, flashchain's --fork-cache), removed at the end, on error and on Ctrl-C. */
const dirs: string[] = []

function fresh(peer: ForkPeerName): string {
  const dir = mkdtempSync(join(os.tmpdir(), `flashchain-fork-bench-${peer}-`))
  dirs.push(dir)
  return dir
}

function removeDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
}

type Context = { proxy: CountingProxy; world: World; notes: string[] }

/** Starts a forking peer over `cacheDir`, runs one workload on it and stops it, counting the upstream traffic. */
async function measure({ proxy, world, notes }: Context, peer: ForkPeerName, workload: WorkloadName, cache: Run['cache'], cacheDir: string) {
  // Nothing should reach the upstream between runs; a stopping peer that still asks for something is reported.
  const between = proxy.take()
  if (between.requests > 0) notes.push(`before ${peer} ${workload} ${cache}: ${between.requests} requests between runs (${byMethod(between)})`)
  const started = await startForkPeer(peer, { upstream: proxy.url, blockNumber: world.forkBlock, cacheDir })
  const settle = async (after: string) => {
    if (!(await proxy.settle(QUIET_MS, 5000))) notes.push(`${peer} ${workload} ${cache}: still asking the upstream 5 s after ${after}`)
  }
  try {
    await settle('it answered')
    const start = proxy.take()
    const t0 = performance.now()
    await runWorkload(workload, started.url, world)
    const workloadMs = performance.now() - t0
    await settle('the workload')
    const traffic = { start, workload: proxy.take() }
    return { peer, workload, cache, startupMs: round(started.startupMs), traffic, workloadMs: round(workloadMs) } satisfies Run
  } finally {
    await stopServer(started)
  }
}

function table(runs: Run[]): string {
  const head = ['peer'.padEnd(10), 'workload', 'cache', 'ready ms', 'start req/calls', 'workload ms', 'req', 'calls', 'workload calls by method']
  const rows = runs.map((run) => [
    run.peer.padEnd(10),
    run.workload.padEnd(8),
    run.cache.padEnd(5),
    run.startupMs.toFixed(0).padStart(8),
    `${run.traffic.start.requests}/${run.traffic.start.calls}`.padStart(15),
    run.workloadMs.toFixed(0).padStart(11),
    String(run.traffic.workload.requests).padStart(3),
    String(run.traffic.workload.calls).padStart(5),
    byMethod(run.traffic.workload),
  ])
  const lines = [head.join('  '), ...rows.map((row) => row.join('  '))]
  lines.push(
    '',
    'start: upstream HTTP requests/JSON-RPC calls from spawn until the peer answers and goes quiet; req, calls: those of the workload (a batch is one request, each call in it a call).',
    ...runs
      .filter((run) => run.traffic.start.calls > 0)
      .map((run) => `start of ${run.peer} ${run.workload} ${run.cache}: ${byMethod(run.traffic.start)}`),
    ...runs
      .filter((run) => run.cache === 'warm')
      .map((run) => `${run.peer} warm, start + workload: ${run.traffic.start.requests + run.traffic.workload.requests} requests`),
  )
  return lines.join('\n')
}

async function main() {
  const reason = unavailable('anvil')
  if (reason !== undefined) throw new Error(`the upstream is anvil: ${reason}`)
  const upstream = await startServer('anvil', { label: 'upstream' })
  const upstreamUrl = `http://127.0.0.1:${upstream.port}`
  const world = await seedUpstream(upstreamUrl)
  console.log(`upstream anvil at ${upstreamUrl}: fork block ${world.forkBlock}, head ${world.upstreamHead}`)
  // A round trip's worth of delay on each upstream answer, as a remote provider has (0: loopback as it is).
  const latencyMs = Number(process.env.BENCH_FORK_LATENCY_MS ?? 0)
  const proxy = await startProxy(upstreamUrl, latencyMs)
  const runs: Run[] = []
  const notes: string[] = []
  const context: Context = { proxy, world, notes }
  try {
    for (const peer of PEERS) {
      try {
        runs.push(await measure(context, peer, 'transfer', 'cold', fresh(peer)))
        const swapCache = fresh(peer)
        runs.push(await measure(context, peer, 'swap', 'cold', swapCache))
        runs.push(await measure(context, peer, 'swap', 'warm', swapCache))
      } catch (error) {
        if (!(error instanceof ForkUnsupported)) throw error
        notes.push(`${peer} skipped: ${error.message}`)
      }
    }
  } finally {
    await proxy.close()
    removeDirs()
  }
  console.log(`\n${table(runs)}`)
  if (notes.length > 0) console.log(`notes:\n${notes.map((note) => `  - ${note}`).join('\n')}`)
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown' },
    upstream: { peer: 'anvil', forkBlock: Number(world.forkBlock), head: Number(world.upstreamHead) },
    runs,
    notes,
  }
  mkdirSync(`${BENCH}results`, { recursive: true })
  // A run with latency is another result beside the loopback one.
  const file = `${BENCH}results/fork-${latencyMs > 0 ? `latency-${latencyMs}ms` : 'latest'}.json`
  writeFileSync(file, `${JSON.stringify({ latencyMs, ...report }, null, 2)}\n`)
  console.log(`wrote ${file}`)
}

const killAll = () => {
  killForkPeersNow()
  killAllNow()
  removeDirs()
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAll()
    process.exit(130)
  })
}
process.on('exit', killAll)
const watchdog = setTimeout(() => {
  console.error(`fork benchmark: not done after ${RUN_TIMEOUT_MS / 60_000} minutes, stopping`)
  process.exit(1)
}, RUN_TIMEOUT_MS)

try {
  await main()
} catch (error) {
  console.error(error)
  process.exitCode = 1
} finally {
  clearTimeout(watchdog)
  await stopForkPeers()
  await stopAll()
}
