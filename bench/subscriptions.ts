// flashchain's live interfaces under load, on 127.0.0.1 (run: node bench/subscriptions.ts):
// 1. latency from eth_sendRawTransaction to the pendingLogs notification, p50 and p99, with SUBSCRIBERS WebSocket
//    subscribers while token transfers arrive at RATE per second (the goal: p99 ≤ flashblock interval + 25 ms);
// 2. fan-out: notifications per second received by FANOUT subscribers of pendingLogs at the same rate, and the
//    server's RSS per subscriber.
// The server is `npm start`'s command with interval mining; the subscribers and the sender share the machine with it,
// so the figures are what one machine does with both sides. Settings (environment): BENCH_RATE (default 200),
// BENCH_SECONDS (per phase, default 10), BENCH_SUBSCRIBERS (default 100), BENCH_FANOUT (default 1000).
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'

import { keccak256 } from 'viem'
import { WebSocket } from 'ws'

import { CHAIN_ID, deployToken, dev, transferData } from './chain.ts'
import { openConnection, percentile, rpc } from './http.ts'
import { freePort, ROOT, rssMB, sleep, stopServer } from './servers.ts'

import type { Hex } from 'viem'
import type { Connection } from './http.ts'

const env = process.env
const RATE = Number(env.BENCH_RATE ?? 200)
const SECONDS = Number(env.BENCH_SECONDS ?? 10)
const SUBSCRIBERS = Number(env.BENCH_SUBSCRIBERS ?? 100)
const FANOUT = Number(env.BENCH_FANOUT ?? 1000)
const INTERVAL = 200

async function startFlashchain(): Promise<{ port: number; pid: number; stop(): Promise<void> }> {
  const port = await freePort()
  const { scripts } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: { start: string } }
  const [, ...flags] = scripts.start.split(/\s+/)
  const args = flags.map((part) => (part.startsWith('-') ? part : `${ROOT}${part}`))
  args.push('--host', '127.0.0.1', '--port', String(port), '--ephemeral', '--quiet', '--mining', 'interval')
  args.push('--flashblock-interval', String(INTERVAL), '--max-connections', String(FANOUT + SUBSCRIBERS + 100))
  // Past the default total of 1000 subscriptions when both phases' subscribers overlap.
  args.push('--max-total-subscriptions', String(FANOUT + SUBSCRIBERS))
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] })
  const connection = openConnection(port)
  for (let attempt = 0; attempt < 400; attempt++) {
    try {
      await rpc(connection, 'eth_chainId')
      connection.close()
      return { port, pid: child.pid!, stop: () => stopServer({ child }) }
    } catch {
      await sleep(25)
    }
  }
  child.kill('SIGKILL')
  throw new Error('flashchain did not start')
}

/** Opens `count` connections, each subscribed to pendingLogs of the token; resolves once every one is subscribed. */
async function subscribe(port: number, count: number, token: Hex, onMessage: (data: Buffer) => void): Promise<WebSocket[]> {
  const sockets: WebSocket[] = []
  for (let opened = 0; opened < count; opened += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, count - opened) }, async () => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false })
        await new Promise<void>((resolve, reject) => {
          ws.once('open', resolve)
          ws.once('error', reject)
        })
        await new Promise<void>((resolve) => {
          ws.once('message', () => resolve())
          ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['pendingLogs', { address: token }] }))
        })
        ws.on('message', onMessage)
        return ws
      }),
    )
    sockets.push(...batch)
  }
  return sockets
}

/** Token transfers from dev account 0, signed ahead so signing never delays a send. */
async function signTransfers(token: Hex, firstNonce: number, count: number): Promise<{ raw: Hex; hash: Hex }[]> {
  const signed: { raw: Hex; hash: Hex }[] = []
  for (let i = 0; i < count; i++) {
    const raw = await dev.signTransaction({
      chainId: CHAIN_ID,
      type: 'eip1559',
      nonce: firstNonce + i,
      to: token,
      data: transferData(`0x${(i + 1).toString(16).padStart(40, '0')}`, 1n),
      gas: 60_000n,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    })
    signed.push({ raw, hash: keccak256(raw) })
  }
  return signed
}

/** Sends at RATE per second on a few connections; returns when each transaction was handed to the socket. */
async function sendAtRate(connections: Connection[], transactions: { raw: Hex; hash: Hex }[]): Promise<Map<Hex, number>> {
  const sentAt = new Map<Hex, number>()
  const started = performance.now()
  const inFlight: Promise<unknown>[] = []
  for (const [i, tx] of transactions.entries()) {
    const due = started + (i * 1000) / RATE
    const wait = due - performance.now()
    if (wait > 1) await sleep(wait)
    sentAt.set(tx.hash, performance.now())
    inFlight.push(rpc(connections[i % connections.length]!, 'eth_sendRawTransaction', [tx.raw]))
    if (inFlight.length >= connections.length) await inFlight.shift()
  }
  await Promise.all(inFlight)
  return sentAt
}

async function nonceOf(connection: Connection): Promise<number> {
  return Number(await rpc<Hex>(connection, 'eth_getTransactionCount', [dev.address, 'pending']))
}

async function main() {
  const server = await startFlashchain()
  const control = openConnection(server.port)
  const connections = Array.from({ length: 4 }, () => openConnection(server.port))
  try {
    const token = await deployToken(control, 'interval')
    const count = RATE * SECONDS

    // 1. Latency with SUBSCRIBERS subscribers.
    const latencies: number[] = []
    let sentAt = new Map<Hex, number>()
    const arrivals: { hash: Hex; at: number }[] = []
    const sockets = await subscribe(server.port, SUBSCRIBERS, token, (data) => {
      const at = performance.now()
      const match = /"transactionHash":"(0x[0-9a-f]{64})"/.exec(data.toString('latin1'))
      if (match !== null) arrivals.push({ hash: match[1] as Hex, at })
    })
    const first = await signTransfers(token, await nonceOf(control), count)
    sentAt = await sendAtRate(connections, first)
    await sleep(3 * INTERVAL + 500)
    for (const { hash, at } of arrivals) {
      const sent = sentAt.get(hash)
      if (sent !== undefined) latencies.push(at - sent)
    }
    latencies.sort((a, b) => a - b)
    const expected = count * SUBSCRIBERS
    console.log(`latency, ${SUBSCRIBERS} subscribers of pendingLogs, ${RATE} tx/s for ${SECONDS} s, flashblock interval ${INTERVAL} ms:`)
    console.log(`  notifications ${latencies.length} of ${expected}`)
    console.log(
      `  p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${latencies.at(-1)?.toFixed(1)} ms (goal: p99 ≤ ${INTERVAL + 25} ms)`,
    )
    for (const ws of sockets) ws.terminate()
    await sleep(500)

    // 2. Fan-out with FANOUT subscribers: notifications counted, not parsed, so the counting side stays light.
    const rssBefore = rssMB(server.pid)
    let received = 0
    const fanout = await subscribe(server.port, FANOUT, token, () => {
      received++
    })
    await sleep(1000)
    const rssSubscribed = rssMB(server.pid)
    const second = await signTransfers(token, await nonceOf(control), count)
    const start = performance.now()
    received = 0
    await sendAtRate(connections, second)
    await sleep(3 * INTERVAL + 500)
    const seconds = (performance.now() - start) / 1000
    const rssLoaded = rssMB(server.pid)
    console.log(`fan-out, ${FANOUT} subscribers of pendingLogs, ${RATE} tx/s for ${SECONDS} s:`)
    console.log(`  notifications received ${received} of ${count * FANOUT}: ${(received / seconds).toFixed(0)} per second`)
    console.log(
      `  server RSS ${rssBefore} MB before, ${rssSubscribed} MB subscribed (${(((rssSubscribed - rssBefore) * 1024) / FANOUT).toFixed(1)} KB per subscriber), ${rssLoaded} MB under load`,
    )
    for (const ws of fanout) ws.terminate()
  } finally {
    control.close()
    for (const connection of connections) connection.close()
    await server.stop()
  }
}

await main()
