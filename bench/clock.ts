// The interval clock under offered load (run: node bench/clock.ts; not part of `npm run bench`): flashchain as
// `npm start` runs it, with interval mining (2 s blocks, 200 ms flashblocks), is offered BENCH_RATE signed transfers a
// second (default 2000) for BENCH_SECONDS (default 8), open loop: each transaction goes out at its own time on one of
// 32 connections, whatever the answers before it, with a 300M block gas limit. A reader of /flashblocks?encoding=json times every frame. Prints
// the flashblock and block intervals (p50, p99, max), the transactions pre-confirmed per second, their latency from
// send to the frame that carries them, and what was still waiting when the load ended; writes
// results/clock-latest.json (BENCH_LABEL=before writes clock-before.json). BENCH_FLASHCHAIN=<checkout>/bin/flashchain.js
// runs another checkout, for a comparison on the same machine. BENCH_ARGS adds command-line options (`--op-stack`: the
// same load on an OP Stack chain, each transaction paying its L1 data fee).
import { mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'

import { keccak256 } from 'viem'
import { WebSocket } from 'ws'

import { benchAccounts, fund, signTransfers } from './chain.ts'
import { openConnection, percentile, rpc } from './http.ts'
import { BENCH, killAllNow, sleep, startServer, stopAll } from './servers.ts'

import type { Hex } from 'viem'

const env = process.env
const RATE = Number(env.BENCH_RATE ?? 2000)
const SECONDS = Number(env.BENCH_SECONDS ?? 8)
const SENDERS = 200
const CONNECTIONS = 32
/** After the load, frames are read this long more, for the backlog to drain. */
const DRAIN_MS = 3000
const LABEL = env.BENCH_LABEL ?? 'latest'
const GAS_LIMIT = 300_000_000

type Frame = { at: number; block: number; index: number; transactions: Hex[] }

const spread = (values: number[]) => {
  const sorted = Float64Array.from(values).sort()
  const round = (value: number) => Math.round(value * 10) / 10
  return { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? Number.NaN), n: values.length }
}

async function main() {
  // Room for the offered load: at the default 30M gas a block holds 1,428 transfers, 714 a second.
  const extra = env.BENCH_ARGS === undefined ? [] : env.BENCH_ARGS.split(' ').filter((arg) => arg !== '')
  const server = await startServer('flashchain', { mining: 'interval', args: ['--block-gas-limit', String(GAS_LIMIT), ...extra] })
  const control = openConnection(server.port)
  const senders = benchAccounts(0, SENDERS)
  const perSender = Math.ceil((RATE * SECONDS) / SENDERS)
  console.log(`signing ${SENDERS * perSender} transfers…`)
  const signed = await signTransfers(senders, perSender)
  await fund(
    control,
    'interval',
    senders.map((account) => account.address),
    10n ** 18n,
  )

  const frames: Frame[] = []
  const reader = new WebSocket(`ws://127.0.0.1:${server.port}/flashblocks?encoding=json`, { perMessageDeflate: false })
  reader.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString('utf8')) as { index: number; metadata: { block_number: number }; diff: { transactions: Hex[] } }
    frames.push({ at: performance.now(), block: frame.metadata.block_number, index: frame.index, transactions: frame.diff.transactions })
  })
  await new Promise((resolve, reject) => reader.once('open', resolve).once('error', reject))
  await sleep(1000)

  // Transaction i goes out at start + i / RATE from sender i mod SENDERS, so each sender's nonces arrive in order.
  const total = SENDERS * perSender
  const count = Math.min(total, RATE * SECONDS)
  const sentAt = new Map<Hex, number>()
  const rejected: string[] = []
  let next = 0
  const start = performance.now()
  const loadStart = start
  const connections = Array.from({ length: CONNECTIONS }, () => openConnection(server.port))
  await Promise.all(
    connections.map(async (connection) => {
      for (let i = next++; i < count; i = next++) {
        const due = start + (i * 1000) / RATE
        const wait = due - performance.now()
        if (wait > 1) await sleep(wait)
        const raw = signed[i % SENDERS]![Math.floor(i / SENDERS)]!
        sentAt.set(keccak256(raw), performance.now())
        try {
          await rpc(connection, 'eth_sendRawTransaction', [raw])
        } catch (error) {
          if (rejected.length < 5) rejected.push(error instanceof Error ? error.message : String(error))
          sentAt.delete(keccak256(raw))
        }
      }
    }),
  )
  const loadEnd = performance.now()
  await sleep(DRAIN_MS)
  reader.close()
  for (const connection of [control, ...connections]) connection.close()

  // Intervals between frames that arrived while the load ran, and between the blocks' first frames.
  const during = frames.filter((frame) => frame.at >= loadStart && frame.at <= loadEnd + DRAIN_MS)
  const flashblockGaps = during.slice(1).map((frame, i) => frame.at - during[i]!.at)
  const starts = during.filter((frame) => frame.index === 0)
  const blockGaps = starts.slice(1).map((frame, i) => frame.at - starts[i]!.at)
  const latencies: number[] = []
  let byLoadEnd = 0
  for (const frame of frames) {
    for (const raw of frame.transactions) {
      const sent = sentAt.get(keccak256(raw))
      if (sent === undefined) continue
      latencies.push(frame.at - sent)
      if (frame.at <= loadEnd) byLoadEnd++
    }
  }
  const report = {
    date: new Date().toISOString(),
    label: LABEL,
    node: process.version,
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown' },
    offered: { rate: RATE, seconds: SECONDS, sent: sentAt.size, rejected: count - sentAt.size, sendSeconds: Math.round(loadEnd - loadStart) / 1000 },
    flashblockIntervalMs: spread(flashblockGaps),
    blockIntervalMs: spread(blockGaps),
    preconfirmationMs: spread(latencies),
    preconfirmed: { total: latencies.length, perSecondDuringLoad: Math.round(byLoadEnd / ((loadEnd - loadStart) / 1000)) },
    waitingAtLoadEnd: sentAt.size - byLoadEnd,
    /** The three longest gaps, with the frames on either side (block.index) and what the later one carried. */
    longestGaps: during
      .slice(1)
      .map((frame, i) => ({
        ms: Math.round(frame.at - during[i]!.at),
        after: `${during[i]!.block}.${during[i]!.index}`,
        frame: `${frame.block}.${frame.index}`,
        transactions: frame.transactions.length,
      }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 3),
    notes: rejected,
  }
  if (env.BENCH_FRAMES === '1') {
    console.log(frames.map((frame) => `${Math.round(frame.at - loadStart)}:${frame.block}.${frame.index}:${frame.transactions.length}`).join(' '))
  }
  console.log(JSON.stringify(report, null, 2))
  mkdirSync(`${BENCH}results`, { recursive: true })
  writeFileSync(`${BENCH}results/clock-${LABEL}.json`, `${JSON.stringify(report, null, 2)}\n`)
  await stopAll()
}

process.on('exit', killAllNow)
try {
  await main()
} catch (error) {
  console.error(error)
  process.exitCode = 1
  await stopAll()
}
