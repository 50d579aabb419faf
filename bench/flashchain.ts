// Figures only flashchain has: how soon a sent transaction is visible through `pending` (its pre-confirmation),
// idle and under a steady background load, and how many EVM runs an eth_estimateGas takes.
import type { Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'

import { addressStream, deployToken, dev, SINK, signTransfers, transferData } from './chain.ts'
import { openConnection, percentile, rpc } from './http.ts'
import { sleep, type Server } from './servers.ts'

export type LatencyFigures = { samples: number; p50: number; p90: number; p99: number; max: number; min: number; timeouts: number }

export type Preconfirmation = {
  intervalMs: number
  /** eth_sendRawTransaction answered → eth_getTransactionReceipt (polled every ~1 ms) answers a receipt. */
  idle: LatencyFigures
  /** The same while other accounts send `backgroundTxPerSec` transfers a second. */
  loaded: LatencyFigures & {
    /** The rate the background senders aimed at, and what the server let them reach (each sender waits for its answer). */
    backgroundTxPerSec: number
    backgroundAchievedTxPerSec: number
    backgroundSent: number
    backgroundErrors: number
    /** Length of the loaded phase, s (it stops starting probes after LOADED_SECONDS). */
    seconds: number
  }
  /** eth_sendRawTransactionSync (EIP-7966): request sent → receipt answered. */
  sync: LatencyFigures
  method: string
}

export type EvmRuns = {
  /** EVM runs per ERC20 transfer estimate (recipient and amount varied), from the server's own log. */
  erc20: { samples: number; min: number; median: number; max: number; mean: number; gas: string; cacheHits: number }
  transfer: { samples: number; min: number; max: number; gas: string }
}

function figures(values: number[], timeouts: number): LatencyFigures {
  const sorted = Float64Array.from(values).sort()
  return {
    samples: values.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    timeouts,
  }
}

const TIMEOUT_MS = 5000
/** The loaded phase stops starting probes after this long (a server that falls behind would make it endless). */
const LOADED_SECONDS = 25

/**
 * Sends `count` transfers one at a time, each after a random pause of up to one interval (so sends fall anywhere
 * between two flashblocks), and times eth_sendRawTransaction's answer → the first receipt.
 */
async function probe(port: number, signed: Hex[], interval: number, maxSeconds = Infinity): Promise<{ latencies: number[]; timeouts: number }> {
  const connection = openConnection(port)
  const latencies: number[] = []
  let timeouts = 0
  const stopAt = performance.now() + maxSeconds * 1000
  try {
    for (const raw of signed) {
      if (performance.now() > stopAt) break
      await sleep(Math.random() * interval)
      const hash = await rpc<Hex>(connection, 'eth_sendRawTransaction', [raw])
      const sent = performance.now()
      for (;;) {
        const receipt = await rpc<unknown>(connection, 'eth_getTransactionReceipt', [hash])
        const now = performance.now()
        if (receipt !== null) {
          latencies.push(now - sent)
          break
        }
        if (now - sent > TIMEOUT_MS) {
          timeouts++
          break
        }
        await sleep(1)
      }
    }
  } finally {
    connection.close()
  }
  return { latencies, timeouts }
}

async function probeSync(port: number, signed: Hex[], interval: number): Promise<{ latencies: number[]; timeouts: number }> {
  const connection = openConnection(port)
  const latencies: number[] = []
  let timeouts = 0
  try {
    for (const raw of signed) {
      await sleep(Math.random() * interval)
      const t0 = performance.now()
      try {
        const receipt = await rpc<{ status: Hex } | null>(connection, 'eth_sendRawTransactionSync', [raw, TIMEOUT_MS])
        if (receipt === null) timeouts++
        else latencies.push(performance.now() - t0)
      } catch {
        timeouts++
      }
    }
  } finally {
    connection.close()
  }
  return { latencies, timeouts }
}

/** Steady background load: each account sends its transfers in nonce order at rate / accounts per second. */
function backgroundLoad(port: number, signed: Hex[][], rate: number) {
  let stopped = false
  let sent = 0
  let errors = 0
  const gap = signed.length / rate // s between one account's sends
  const loops = signed.map(async (transactions, a) => {
    const connection = openConnection(port)
    const t0 = performance.now() + (a * 1000) / rate
    try {
      for (let k = 0; k < transactions.length && !stopped; k++) {
        const due = t0 + k * gap * 1000
        const wait = due - performance.now()
        if (wait > 0) await sleep(wait)
        try {
          await rpc(connection, 'eth_sendRawTransaction', [transactions[k]!])
          sent++
        } catch {
          errors++
        }
      }
    } finally {
      connection.close()
    }
  })
  return {
    async stop() {
      stopped = true
      await Promise.all(loops)
      return { sent, errors }
    },
  }
}

export async function measurePreconfirmation(
  port: number,
  options: {
    probes: number
    interval: number
    accounts: { probes: PrivateKeyAccount; sync: PrivateKeyAccount; load: PrivateKeyAccount[] }
    debug?: (line: string) => void
  },
): Promise<Preconfirmation> {
  const { probes: count, interval, accounts } = options
  const debug = options.debug ?? (() => {})
  const [probeTxs] = await signTransfers([accounts.probes], count * 2)
  const [syncTxs] = await signTransfers([accounts.sync], count)
  const rate = 200
  // Enough for the loaded probe phase (count × ≤ 2 intervals, at most LOADED_SECONDS) with room to spare.
  const loadedSeconds = Math.min(LOADED_SECONDS, (count * 2 * interval) / 1000)
  const perAccount = Math.ceil((rate * (loadedSeconds + 3)) / accounts.load.length)
  const loadTxs = await signTransfers(accounts.load, perAccount)

  debug('pre-confirmation: idle probes')
  const idle = await probe(port, probeTxs!.slice(0, count), interval)
  debug('pre-confirmation: eth_sendRawTransactionSync probes')
  const sync = await probeSync(port, syncTxs!, interval)
  debug('pre-confirmation: background load starts')
  const background = backgroundLoad(port, loadTxs, rate)
  const loadStart = performance.now()
  await sleep(1000)
  debug('pre-confirmation: loaded probes')
  const loaded = await probe(port, probeTxs!.slice(count), interval, LOADED_SECONDS)
  debug('pre-confirmation: background load stops')
  const { sent, errors } = await background.stop()
  const loadSeconds = (performance.now() - loadStart) / 1000
  debug(`pre-confirmation: done (${sent} background transactions)`)
  return {
    intervalMs: interval,
    idle: figures(idle.latencies, idle.timeouts),
    loaded: {
      ...figures(loaded.latencies, loaded.timeouts),
      backgroundTxPerSec: rate,
      backgroundAchievedTxPerSec: sent / loadSeconds,
      backgroundSent: sent,
      backgroundErrors: errors,
      seconds: (performance.now() - loadStart) / 1000 - 1,
    },
    sync: figures(sync.latencies, sync.timeouts),
    method:
      'each probe waits a random 0–interval ms, sends one pre-signed transfer, then polls eth_getTransactionReceipt every ~1 ms; ' +
      'latency = from eth_sendRawTransaction answering to the first non-null receipt (a pre-confirmed receipt is visible through pending)',
  }
}

/** Counts EVM runs per estimate from the server's log lines "eth_estimateGas: GAS after N EVM runs". */
export async function measureEvmRuns(server: Server, samples = 100): Promise<EvmRuns> {
  const connection = openConnection(server.port)
  try {
    const tokenAddress = await deployToken(connection, 'manual')
    const next = addressStream(0xe57)
    const before = server.lines!.length
    for (let i = 0; i < samples; i++) {
      await rpc(connection, 'eth_estimateGas', [{ from: dev.address, to: tokenAddress, data: transferData(next(), BigInt(1 + i * 7919)) }, 'latest'])
    }
    // Each transfer a different value: identical requests would be answered from the answer cache, without a run.
    for (let i = 0; i < 20; i++)
      await rpc(connection, 'eth_estimateGas', [{ from: dev.address, to: SINK, value: `0x${(i + 1).toString(16)}` }, 'latest'])
    await sleep(200) // the log is written asynchronously to a pipe
    const lines = server.lines!.slice(before)
    const found = lines.flatMap((line) => {
      const match = /eth_estimateGas: (\d+) after (\d+) EVM runs?/.exec(line)
      return match === null ? [] : [{ gas: match[1]!, runs: Number(match[2]) }]
    })
    const cacheHits = lines.filter((line) => /eth_estimateGas: \d+ from the answer cache/.test(line)).length
    if (found.length < samples + 20) throw new Error(`expected ${samples + 20} eth_estimateGas log lines, found ${found.length}`)
    const erc20 = found.slice(0, samples)
    const transfer = found.slice(samples, samples + 20)
    const runs = erc20.map((e) => e.runs).sort((a, b) => a - b)
    const gases = [...new Set(erc20.map((e) => e.gas))]
    return {
      erc20: {
        samples,
        min: runs[0]!,
        median: runs[Math.floor(runs.length / 2)]!,
        max: runs[runs.length - 1]!,
        mean: runs.reduce((a, b) => a + b, 0) / runs.length,
        gas: gases.join(', '),
        cacheHits,
      },
      transfer: {
        samples: transfer.length,
        min: Math.min(...transfer.map((e) => e.runs)),
        max: Math.max(...transfer.map((e) => e.runs)),
        gas: [...new Set(transfer.map((e) => e.gas))].join(', '),
      },
    }
  } finally {
    connection.close()
  }
}
