// The replica benchmark, `node bench/replicas.ts` (docs/scaling-out.md, "Figures"): a flashchain sequencer on its
// interval clock and `flashchain follow` replicas, each its own process on 127.0.0.1, fed with signed transfers at a
// fixed rate. It measures
//   - lag: when a frame reaches a reader of the sequencer's stream, and when the replica's own stream sends the same
//     flashblock (the replica publishes once it has run it, so its `pending` answers with it from then on);
//   - reads: a replica's eth_getBalance and eth_call throughput beside a standalone node's, both under the same load;
//   - the sequencer's CPU with no replica, one, and three, at 200 tx/s;
//   - the sequencer's flashblock intervals with three replicas and 200 more stream readers at 200 tx/s;
//   - a soak (BENCH_SOAK_MINUTES, default 10; 0 skips it): a replica killed with SIGKILL and started again every
//     minute, and after each, every block it has compared with the sequencer's, and every frame both streamed.
// Prints a table and writes results/replicas-latest.json. There is no anvil or Hardhat figure: neither has replicas.
import { writeFileSync } from 'node:fs'

import { encodeFunctionData } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import WebSocket from 'ws'

import { openConnection, percentile, rpc, rpcBody, runLoad } from './http.ts'
import { BENCH, cpuSeconds, killAllNow, sleep, startServer, stopAll, stopServer } from './servers.ts'

import type { Server } from './servers.ts'

const MNEMONIC = 'test test test test test test test test test test test junk'
const accounts = Array.from({ length: 10 }, (_, i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }))
const SOAK_MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 10)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20)
/** BENCH_PHASES=lag,reads,cpu,intervals,soak runs those alone (all by default). */
const PHASES = process.env.BENCH_PHASES?.split(',')
/** The whole run stops past this. */
const RUN_TIMEOUT_MS = (SOAK_MINUTES + 15) * 60_000

type Frame = { number: number; index: number; hash: string; at: number }

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits
const stream = (server: Server) => `ws://127.0.0.1:${server.port}/flashblocks`

/** A reader of a node's stream (JSON), keeping when each frame came. */
function readStream(server: Server, encoding: 'json' | 'brotli' = 'json'): Promise<{ frames: Frame[]; close(): void }> {
  const frames: Frame[] = []
  const socket = new WebSocket(`${stream(server)}?encoding=${encoding}`, { perMessageDeflate: false })
  socket.on('message', (data) => {
    if (encoding !== 'json') return
    const at = performance.now()
    const frame = JSON.parse(data.toString()) as { index: number; metadata: { block_number: number }; diff: { block_hash: string } }
    frames.push({ number: frame.metadata.block_number, index: frame.index, hash: frame.diff.block_hash, at })
  })
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ frames, close: () => socket.close() }))
    socket.once('error', reject)
  })
}

/**
 * Sends signed transfers to `server` at `perSecond` for `seconds`, paced, one connection per sender, each sender's
 * nonces in order. Signing is done before the clock starts.
 */
async function transfers(server: Server, perSecond: number, seconds: number): Promise<{ sent: number; failed: number }> {
  const control = openConnection(server.port)
  const nonces: bigint[] = []
  for (const account of accounts) nonces.push(BigInt(await rpc<string>(control, 'eth_getTransactionCount', [account.address, 'pending'])))
  control.close()
  const total = perSecond * seconds
  const raws: { sender: number; raw: string }[] = []
  for (let i = 0; i < total; i++) {
    const sender = i % accounts.length
    const nonce = nonces[sender]!++
    const raw = await accounts[sender]!.signTransaction({
      chainId: 31337,
      nonce: Number(nonce),
      to: accounts[(sender + 1) % accounts.length]!.address,
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
    })
    raws.push({ sender, raw })
  }
  const connections = accounts.map(() => openConnection(server.port))
  const queues = accounts.map(() => Promise.resolve())
  let failed = 0
  let firstFailure: string | undefined
  const failure = (why: string) => {
    failed++
    firstFailure ??= why
  }
  const started = performance.now()
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / perSecond - performance.now()
    if (wait > 0) await sleep(wait)
    const { sender, raw } = raws[i]!
    queues[sender] = queues[sender]!.then(() =>
      connections[sender]!.post(rpcBody('eth_sendRawTransaction', [raw])).then(
        (text) => void (text.includes('"error"') && failure(text.slice(0, 200))),
        (error: Error) => failure(error.message),
      ),
    )
  }
  await Promise.all(queues)
  for (const connection of connections) connection.close()
  // Numbers measured under a load that did not go in would be no measure of it.
  if (failed > 0) throw new Error(`${failed} of ${total} transfers failed: ${firstFailure}`)
  return { sent: total, failed }
}

/** Lag of `replica`'s frames behind the sequencer's: for each flashblock both streamed, ms between the two. */
function lags(sequencer: Frame[], replica: Frame[]): { lags: number[]; mismatched: number } {
  const byKey = new Map(replica.map((frame) => [`${frame.number}:${frame.index}`, frame]))
  const out: number[] = []
  let mismatched = 0
  for (const frame of sequencer) {
    const own = byKey.get(`${frame.number}:${frame.index}`)
    if (own === undefined) continue
    if (own.hash !== frame.hash) mismatched++
    out.push(own.at - frame.at)
  }
  return { lags: out.sort((a, b) => a - b), mismatched }
}

async function untilFollowing(replica: Server): Promise<void> {
  const connection = openConnection(replica.port)
  try {
    for (let attempt = 0; attempt < 6000; attempt++) {
      const status = await rpc<{ state: string; frames: number }>(connection, 'flashchain_followStatus')
      if (status.state === 'following' && status.frames > 0) return
      await sleep(10)
    }
    throw new Error('the replica did not start following within a minute')
  } finally {
    connection.close()
  }
}

const startReplica = async (sequencer: Server) => {
  const replica = await startServer('flashchain', { follow: stream(sequencer), label: 'replica' })
  await untilFollowing(replica)
  return replica
}

async function measureLag(): Promise<Record<string, number>> {
  const sequencer = await startServer('flashchain', { mining: 'interval' })
  const replica = await startReplica(sequencer)
  const [ofSequencer, ofReplica] = await Promise.all([readStream(sequencer), readStream(replica)])
  await transfers(sequencer, 100, SECONDS)
  await sleep(500)
  ofSequencer.close()
  ofReplica.close()
  const { lags: measured, mismatched } = lags(ofSequencer.frames, ofReplica.frames)
  await stopServer(replica)
  await stopServer(sequencer)
  return {
    frames: measured.length,
    mismatched,
    p50: round(percentile(measured, 50)),
    p99: round(percentile(measured, 99)),
    max: round(measured.at(-1) ?? Number.NaN),
  }
}

/** Reads per second a node answers, at 8 connections: eth_getBalance of the senders and an eth_call, alternating. */
async function readThroughput(server: Server): Promise<number> {
  const data = encodeFunctionData({
    abi: [{ type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'a', type: 'address' }], outputs: [{ type: 'uint256' }] }],
    functionName: 'balanceOf',
    args: [accounts[1]!.address],
  })
  let n = 0
  const result = await runLoad({
    port: server.port,
    connections: 8,
    warmupSeconds: 2,
    seconds: SECONDS / 2,
    next: () =>
      n++ % 2 === 0
        ? rpcBody('eth_getBalance', [accounts[n % accounts.length]!.address, 'latest'])
        : rpcBody('eth_call', [{ to: accounts[2]!.address, data }, 'latest']),
  })
  if (result.errors > 0) throw new Error(`reads failed: ${result.firstError}`)
  return result.ok / result.elapsed
}

/**
 * A replica's reads beside a standalone node's, on a machine loaded alike: two flashchain processes each running 50
 * transfers a second, the node and another one for the standalone figure, the sequencer and its replica for the
 * replica's. Alternated, twice each: the median of each is reported.
 */
async function measureReads(): Promise<Record<string, number>> {
  const alone: number[] = []
  const followed: number[] = []
  for (let round = 0; round < 2; round++) {
    const standalone = await startServer('flashchain', { mining: 'interval', label: 'standalone' })
    const other = await startServer('flashchain', { mining: 'interval', label: 'other' })
    const loads = [transfers(standalone, 50, SECONDS), transfers(other, 50, SECONDS)]
    alone.push(await readThroughput(standalone))
    await Promise.all(loads)
    await stopServer(other)
    await stopServer(standalone)
    const sequencer = await startServer('flashchain', { mining: 'interval' })
    const replica = await startReplica(sequencer)
    const load = transfers(sequencer, 50, SECONDS)
    followed.push(await readThroughput(replica))
    await load
    await stopServer(replica)
    await stopServer(sequencer)
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  return { standalone: Math.round(median(alone)), replica: Math.round(median(followed)), ratio: round(median(followed) / median(alone), 2) }
}

/** The sequencer's CPU at 200 tx/s with `count` replicas, and the first replica's, % of one core. */
async function sequencerCpu(count: number): Promise<{ sequencer: number; replica?: number }> {
  const sequencer = await startServer('flashchain', { mining: 'interval' })
  const replicas: Server[] = []
  for (let i = 0; i < count; i++) replicas.push(await startReplica(sequencer))
  // A first load warms the sequencer's code; the second is measured.
  await transfers(sequencer, 200, 5)
  const before = [sequencer, ...replicas].map((server) => cpuSeconds(server.pid))
  const started = performance.now()
  await transfers(sequencer, 200, SECONDS)
  const seconds = (performance.now() - started) / 1000
  const [ofSequencer, ofReplica] = [sequencer, ...replicas].map((server, i) => round(((cpuSeconds(server.pid) - before[i]!) / seconds) * 100))
  for (const replica of replicas) await stopServer(replica)
  await stopServer(sequencer)
  return ofReplica === undefined ? { sequencer: ofSequencer! } : { sequencer: ofSequencer!, replica: ofReplica }
}

async function measureIntervals(): Promise<Record<string, number>> {
  const sequencer = await startServer('flashchain', { mining: 'interval' })
  const replicas: Server[] = []
  for (let i = 0; i < 3; i++) replicas.push(await startReplica(sequencer))
  const readers = await Promise.all(Array.from({ length: 200 }, () => readStream(sequencer, 'brotli')))
  const watcher = await readStream(sequencer)
  await transfers(sequencer, 200, SECONDS)
  watcher.close()
  for (const reader of readers) reader.close()
  const intervals = watcher.frames
    .slice(1)
    .map((frame, i) => frame.at - watcher.frames[i]!.at)
    .sort((a, b) => a - b)
  for (const replica of replicas) await stopServer(replica)
  await stopServer(sequencer)
  return {
    frames: watcher.frames.length,
    p50: round(percentile(intervals, 50)),
    p99: round(percentile(intervals, 99)),
    max: round(intervals.at(-1) ?? Number.NaN),
  }
}

/** Every block the replica holds, compared with the sequencer's by hash and state root; the count that differ. */
async function compareBlocks(sequencer: Server, replica: Server): Promise<{ blocks: number; mismatched: number }> {
  const [a, b] = [openConnection(sequencer.port), openConnection(replica.port)]
  try {
    const head = BigInt(await rpc<string>(b, 'eth_blockNumber'))
    let mismatched = 0
    for (let number = 0n; number <= head; number++) {
      const tag = `0x${number.toString(16)}`
      const [x, y] = await Promise.all([
        rpc<{ hash: string }>(a, 'eth_getBlockByNumber', [tag, false]),
        rpc<{ hash: string }>(b, 'eth_getBlockByNumber', [tag, false]),
      ])
      const [p, q] = await Promise.all([rpc(a, 'eth_getBalance', [accounts[1]!.address, tag]), rpc(b, 'eth_getBalance', [accounts[1]!.address, tag])])
      if (x.hash !== y.hash || p !== q) mismatched++
    }
    return { blocks: Number(head) + 1, mismatched }
  } finally {
    a.close()
    b.close()
  }
}

async function soak(): Promise<Record<string, number>> {
  const sequencer = await startServer('flashchain', { mining: 'interval' })
  let replica = await startReplica(sequencer)
  const ofSequencer = await readStream(sequencer)
  let ofReplica = await readStream(replica)
  let mismatched = 0
  let frames = 0
  let blocks = 0
  const catchUps: number[] = []
  for (let minute = 0; minute < SOAK_MINUTES; minute++) {
    await transfers(sequencer, 50, 55)
    const compared = lags(ofSequencer.frames, ofReplica.frames)
    frames += compared.lags.length
    mismatched += compared.mismatched
    const checked = await compareBlocks(sequencer, replica)
    blocks += checked.blocks
    mismatched += checked.mismatched
    // SIGKILL, and a new replica on another port.
    ofReplica.close()
    replica.child.kill('SIGKILL')
    await new Promise((resolve) => replica.child.once('exit', resolve))
    const started = performance.now()
    replica = await startReplica(sequencer)
    catchUps.push(performance.now() - started)
    ofReplica = await readStream(replica)
  }
  ofSequencer.close()
  ofReplica.close()
  await stopServer(replica)
  await stopServer(sequencer)
  catchUps.sort((a, b) => a - b)
  return {
    minutes: SOAK_MINUTES,
    framesCompared: frames,
    blocksCompared: blocks,
    mismatched,
    catchUpP50Ms: round(percentile(catchUps, 50), 0),
    catchUpMaxMs: round(catchUps.at(-1) ?? Number.NaN, 0),
  }
}

async function main() {
  const timeout = setTimeout(() => {
    console.error('the run took too long; stopping')
    killAllNow()
    process.exit(1)
  }, RUN_TIMEOUT_MS)
  timeout.unref()
  const results: Record<string, unknown> = { date: new Date().toISOString(), seconds: SECONDS }
  const run = (phase: string) => PHASES === undefined || PHASES.includes(phase)
  if (run('lag')) {
    results.lag = await measureLag()
    console.log('lag, frame on the sequencer’s stream → same frame on the replica’s, ms:', results.lag)
  }
  if (run('reads')) {
    results.reads = await measureReads()
    console.log('reads per second (eth_getBalance and eth_call, 8 connections):', results.reads)
  }
  if (run('cpu')) {
    const [none, one, three] = [await sequencerCpu(0), await sequencerCpu(1), await sequencerCpu(3)]
    results.sequencerCpu = {
      replicas0: none.sequencer,
      replicas1: one.sequencer,
      replicas3: three.sequencer,
      perReplica: round((three.sequencer - none.sequencer) / 3),
      aReplicasOwn: one.replica,
    }
    console.log('sequencer CPU at 200 tx/s, % of a core:', results.sequencerCpu)
  }
  if (run('intervals')) {
    results.intervals = await measureIntervals()
    console.log('flashblock intervals with 3 replicas and 200 stream readers at 200 tx/s, ms:', results.intervals)
  }
  if (run('soak') && SOAK_MINUTES > 0) {
    results.soak = await soak()
    console.log('soak, a replica killed and started again every minute:', results.soak)
  }
  writeFileSync(`${BENCH}results/${PHASES === undefined ? 'replicas-latest' : 'replicas-subset'}.json`, `${JSON.stringify(results, null, 2)}\n`)
}

process.on('SIGINT', () => {
  killAllNow()
  process.exit(130)
})
main()
  .catch((error) => {
    console.error(error)
    process.exitCode = 1
  })
  .finally(() => stopAll())
