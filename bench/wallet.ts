// The wallet's figures: time from wallet_sendCalls to status 200 for a 2-call atomic batch at the default block
// time, and how many batches per second the wallet accepts and completes. Run: node bench/wallet.ts
// Starts its own flashchain on 127.0.0.1 (port 0); every loop is bounded in count and time.
import { spawn } from 'node:child_process'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const SAMPLES = Number(process.env.BENCH_WALLET_SAMPLES ?? 20)
const THROUGHPUT_SECONDS = Number(process.env.BENCH_WALLET_SECONDS ?? 10)

type Rpc = (method: string, params: unknown) => Promise<unknown>

async function start(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [join(root, 'bin/flashchain.js'), '--port', '0', '--ephemeral', '--quiet', '--host', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    let output = ''
    const timeout = setTimeout(() => reject(new Error('flashchain did not start within 20 s')), 20_000)
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk
      const match = output.match(/Listening on (http:\/\/\S+)/)
      if (match !== null) {
        clearTimeout(timeout)
        resolve(match[1]!)
      }
    })
  })
  const stop = () =>
    new Promise<void>((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), 5_000)
      child.on('exit', () => {
        clearTimeout(kill)
        resolve()
      })
      child.kill('SIGTERM')
    })
  return { url, stop }
}

function client(url: string): Rpc {
  let id = 0
  return async (method, params) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    })
    const body = (await response.json()) as { result?: unknown; error?: { message: string } }
    if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`)
    return body.result
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

function batch(from: string, to: string, atomic: boolean) {
  return {
    version: '2.0.0',
    from,
    chainId: '0x7a69',
    atomicRequired: atomic,
    calls: [
      { to, value: '0x1' },
      { to, value: '0x2' },
    ],
  }
}

async function until(rpc: Rpc, id: string, deadline: number): Promise<number> {
  for (;;) {
    const status = (await rpc('wallet_getCallsStatus', [id])) as { status: number }
    if (status.status >= 200) return status.status
    if (Date.now() > deadline) throw new Error(`batch ${id} still ${status.status} at the deadline`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const server = await start()
try {
  const rpc = client(server.url)
  const accounts = (await rpc('eth_accounts', [])) as string[]

  // 1. Latency: one 2-call atomic batch at a time, from sendCalls to status 200 (it waits for the 2 s seal).
  const latencies: number[] = []
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now()
    const { id } = (await rpc('wallet_sendCalls', [batch(accounts[0]!, accounts[1]!, true)])) as { id: string }
    const status = await until(rpc, id, Date.now() + 10_000)
    if (status !== 200) throw new Error(`batch ended with ${status}`)
    latencies.push(performance.now() - started)
  }

  // 2. Throughput: 2-call atomic batches from several accounts, 8 in flight, for a bounded time.
  const senders = accounts.slice(2)
  const ids: string[] = []
  const deadline = Date.now() + THROUGHPUT_SECONDS * 1000
  const began = performance.now()
  await Promise.all(
    Array.from({ length: 8 }, async (_, worker) => {
      while (Date.now() < deadline) {
        const from = senders[worker % senders.length]!
        const { id } = (await rpc('wallet_sendCalls', [batch(from, accounts[1]!, true)])) as { id: string }
        ids.push(id)
      }
    }),
  )
  const accepting = (performance.now() - began) / 1000
  const statuses = await Promise.all(ids.map((id) => until(rpc, id, Date.now() + 30_000)))
  const completing = (performance.now() - began) / 1000
  const succeeded = statuses.filter((status) => status === 200).length

  const result = {
    date: new Date().toISOString(),
    atomicBatchToStatus200Ms: { samples: SAMPLES, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies) },
    throughput: {
      seconds: THROUGHPUT_SECONDS,
      batchesAccepted: ids.length,
      acceptedPerSecond: ids.length / accepting,
      completedPerSecond: succeeded / completing,
      succeeded,
    },
  }
  console.log(
    `2-call atomic batch, sendCalls → status 200: p50 ${result.atomicBatchToStatus200Ms.p50.toFixed(0)} ms, p99 ${result.atomicBatchToStatus200Ms.p99.toFixed(0)} ms (${SAMPLES} batches, block time 2000 ms)`,
  )
  console.log(
    `wallet_sendCalls throughput: ${result.throughput.acceptedPerSecond.toFixed(1)} batches/s accepted, ${result.throughput.completedPerSecond.toFixed(1)} batches/s through status 200 (${succeeded}/${ids.length} succeeded)`,
  )
  console.log(JSON.stringify(result))
} finally {
  await server.stop()
}
