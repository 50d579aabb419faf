// What every resilience scenario (bench/resilience.ts) shares: a fresh flashchain command-line process from a chosen
// checkout, a resident-set sampler that kills the server past a cap, an eth_chainId probe standing for "another
// client", JSON-RPC over fetch, signed token transfers at a fixed rate, and the kernel's view of client sockets.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'

import { concat, encodeDeployData, getContractAddress, keccak256, type Hex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'

import { CHAIN_ID, dev, SINK, token, transferData } from './chain.ts'
import { percentile } from './http.ts'
import { freePort, ROOT, rssMB, sleep, stopServer } from './servers.ts'

const env = process.env

/** Seconds each scenario drives its fault (RESILIENCE_SECONDS, at most 60). */
export const SECONDS = Math.min(60, Number(env.RESILIENCE_SECONDS ?? 60))
/** Seconds of quiet after the abusers leave, before the resident set is read again (RESILIENCE_REST). */
export const REST = Number(env.RESILIENCE_REST ?? 10)
/** The server is killed once its resident set passes this many MB (RESILIENCE_RSS_CAP_MB): the faults can take the machine. */
export const RSS_CAP_MB = Number(env.RESILIENCE_RSS_CAP_MB ?? 3072)
/** How long a probe or a transaction send may wait for its answer before it counts as timed out, ms. */
const REQUEST_TIMEOUT_MS = 5_000

/** Dev account 1 of the standard test mnemonic: deploys the scenarios' contracts while account 0 sends the traffic. */
export const deployer = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 1 })

const MAX_FEE = 100_000_000_000n
const TIP = 1_000_000_000n

export type Target = {
  root: string
  port: number
  pid: number
  url: string
  child: ChildProcess
  /** Set once the sampler killed the server for passing the cap. */
  killedAtMB?: number
  output: string[]
}

export type TargetOptions = { mining?: 'interval' | 'manual'; extraArgs?: string[] }

/** The checkout measured: RESILIENCE_ROOT (or --root), else this one. */
export function targetRoot(flag: string | undefined): string {
  const root = resolve(flag ?? env.RESILIENCE_ROOT ?? ROOT)
  if (!existsSync(`${root}/bin/flashchain.js`)) throw new Error(`${root} has no bin/flashchain.js`)
  return root
}

/** Starts `npm start`'s command of the checkout at `root` (its own node flags) on 127.0.0.1, in memory, quiet. */
export async function startTarget(root: string, options: TargetOptions = {}): Promise<Target> {
  const port = await freePort()
  const { scripts } = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { scripts: { start: string } }
  const [node, ...rest] = scripts.start.split(/\s+/)
  if (node !== 'node') throw new Error(`npm start of ${root} is "${scripts.start}", not a node command`)
  const args = rest.map((part) => (part.startsWith('-') ? part : `${root}/${part}`))
  args.push('--host', '127.0.0.1', '--port', String(port), '--ephemeral', '--quiet', '--mining', options.mining ?? 'interval')
  args.push(...(options.extraArgs ?? []))
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] })
  const output: string[] = []
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (chunk: string) => {
    output.push(...chunk.split('\n').filter((line) => line.length > 0))
    if (output.length > 40) output.splice(0, output.length - 40)
  })
  const target: Target = { root, port, pid: child.pid!, url: `http://127.0.0.1:${port}`, child, output }
  const deadline = performance.now() + 60_000
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`flashchain exited at start:\n${output.join('\n')}`)
    try {
      await call(target, 'eth_chainId', [], 1000)
      return target
    } catch {
      if (performance.now() > deadline) {
        await stopTarget(target)
        throw new Error('flashchain did not answer within 60 s')
      }
      await sleep(25)
    }
  }
}

export async function stopTarget(target: Target): Promise<void> {
  await stopServer({ child: target.child }, 3000)
}

export function alive(target: Target): boolean {
  return target.child.exitCode === null && target.child.signalCode === null
}

export type RssSummary = { startMB: number; peakMB: number; afterMB?: number; killedAtMB?: number; samples: number }

/**
 * Samples the server's VmRSS every 200 ms; past RSS_CAP_MB it kills the server (SIGKILL, by PID) and aborts the
 * scenario through `abort`.
 */
export function sampleRss(target: Target, abort: AbortController) {
  const startMB = rssMB(target.pid)
  let peakMB = startMB
  let samples = 0
  const series: { at: number; mb: number }[] = []
  const t0 = performance.now()
  const timer = setInterval(() => {
    if (!alive(target)) return
    let mb: number
    try {
      mb = rssMB(target.pid)
    } catch {
      return
    }
    samples++
    series.push({ at: (performance.now() - t0) / 1000, mb })
    if (mb > peakMB) peakMB = mb
    if (mb > RSS_CAP_MB && target.killedAtMB === undefined) {
      target.killedAtMB = mb
      target.child.kill('SIGKILL')
      abort.abort(new Error(`killed at ${Math.round(mb)} MB`))
    }
  }, 200)
  return {
    series,
    now: () => (alive(target) ? rssMB(target.pid) : Number.NaN),
    stop(): RssSummary {
      clearInterval(timer)
      return { startMB, peakMB, samples, ...(target.killedAtMB === undefined ? {} : { killedAtMB: target.killedAtMB }) }
    },
  }
}

export type ProbeSummary = { sent: number; answered: number; failed: number; p50: number; p99: number; max: number }

/**
 * Another client: eth_chainId over HTTP every 50 ms (open loop, so a stalled server shows as long waits, not as
 * fewer samples). A request that fails or passes the timeout counts with the time it waited.
 */
export function probe(target: Target) {
  const latencies: number[] = []
  let sent = 0
  let failed = 0
  let inFlight = 0
  const pending = new Set<Promise<void>>()
  const timer = setInterval(() => {
    if (inFlight >= 50) return
    inFlight++
    sent++
    const t0 = performance.now()
    const request = call(target, 'eth_chainId', [], REQUEST_TIMEOUT_MS).then(
      () => void latencies.push(performance.now() - t0),
      () => {
        failed++
        latencies.push(performance.now() - t0)
      },
    )
    const done = request.finally(() => {
      inFlight--
      pending.delete(done)
    })
    pending.add(done)
  }, 50)
  return {
    async stop(): Promise<ProbeSummary> {
      clearInterval(timer)
      await Promise.all(pending)
      const sorted = latencies.sort((a, b) => a - b)
      return {
        sent,
        answered: sent - failed,
        failed,
        p50: round(percentile(sorted, 50)),
        p99: round(percentile(sorted, 99)),
        max: round(sorted.at(-1) ?? Number.NaN),
      }
    },
  }
}

export function round(value: number, digits = 1): number {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}

export class CallError extends Error {
  code: number
  constructor(method: string, code: number, message: string) {
    super(`${method}: ${message} (${code})`)
    this.code = code
  }
}

/** One JSON-RPC request over fetch; throws CallError on an error answer, and aborts after `timeoutMs`. */
export async function call<T = unknown>(
  target: Pick<Target, 'url'>,
  method: string,
  params: unknown[] = [],
  timeoutMs = 30_000,
  headers: Record<string, string> = {},
): Promise<T> {
  const response = await fetch(target.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  })
  const answer = (await response.json()) as { result?: T; error?: { code: number; message: string } }
  if (answer.error !== undefined) throw new CallError(method, answer.error.code, answer.error.message)
  return answer.result as T
}

/** "answered <what>", "error <code> <message>" or "no answer (<why>)": one line for the report. */
export function describe(outcome: PromiseSettledResult<unknown>): string {
  if (outcome.status === 'fulfilled') return `answered ${JSON.stringify(outcome.value)?.slice(0, 60)}`
  const reason = outcome.reason
  if (reason instanceof CallError) return `error ${reason.code} ${reason.message.slice(0, 80)}`
  return `no answer (${reason instanceof Error ? reason.message.slice(0, 80) : String(reason)})`
}

/** Waits for a receipt (polled every 50 ms). */
export async function receipt(target: Target, hash: Hex, timeoutMs = 20_000): Promise<{ status: Hex; contractAddress: Hex | null; gasUsed: Hex }> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const found = await call<{ status: Hex; contractAddress: Hex | null; gasUsed: Hex } | null>(target, 'eth_getTransactionReceipt', [hash])
    if (found !== null) return found
    if (performance.now() > deadline) throw new Error(`no receipt for ${hash} within ${timeoutMs} ms`)
    await sleep(50)
  }
}

async function nonceOf(target: Target, address: Hex): Promise<number> {
  return Number(await call<Hex>(target, 'eth_getTransactionCount', [address, 'pending']))
}

/** Deploys `runtime` (raw EVM code) from the deployer account behind a constructor that returns it; its address. */
export async function deployCode(target: Target, runtime: Hex): Promise<Hex> {
  const length = (runtime.length - 2) / 2
  // PUSH2 length, DUP1, PUSH1 12, PUSH1 0, CODECOPY, PUSH1 0, RETURN: the 12 bytes before the runtime copy it out.
  const prefix: Hex = `0x61${length.toString(16).padStart(4, '0')}80600c6000396000f3`
  return deploy(target, deployer, concat([prefix, runtime]))
}

/** Deploys BenchToken (bench/contracts) from dev account 0, which then holds the whole supply. */
export function deployToken(target: Target): Promise<Hex> {
  return deploy(target, dev, encodeDeployData({ abi: token.abi, bytecode: token.bytecode, args: [10n ** 30n] }))
}

async function deploy(target: Target, account: typeof dev | typeof deployer, data: Hex): Promise<Hex> {
  const nonce = await nonceOf(target, account.address)
  const raw = await account.signTransaction({
    chainId: CHAIN_ID,
    type: 'eip1559',
    nonce,
    data,
    gas: 3_000_000n,
    maxFeePerGas: MAX_FEE,
    maxPriorityFeePerGas: TIP,
  })
  const hash = await call<Hex>(target, 'eth_sendRawTransaction', [raw])
  const mined = await receipt(target, hash)
  if (mined.status !== '0x1') throw new Error('a scenario contract failed to deploy')
  const address = getContractAddress({ from: account.address, nonce: BigInt(nonce) })
  // Pre-confirmed is not yet `latest`, which the scenarios' calls read: wait for the block to seal.
  const deadline = performance.now() + 20_000
  while ((await call<Hex>(target, 'eth_getCode', [address, 'latest'])) === '0x') {
    if (performance.now() > deadline) throw new Error(`${address} has no code in latest after 20 s`)
    await sleep(100)
  }
  return address
}

/** Signs and sends one transaction from the deployer; its hash once it is in a (pre-confirmed) block. */
export async function sendFromDeployer(target: Target, to: Hex, data: Hex, gas: bigint): Promise<Hex> {
  const nonce = await nonceOf(target, deployer.address)
  const raw = await deployer.signTransaction({
    chainId: CHAIN_ID,
    type: 'eip1559',
    nonce,
    to,
    data,
    gas,
    maxFeePerGas: MAX_FEE,
    maxPriorityFeePerGas: TIP,
  })
  const hash = await call<Hex>(target, 'eth_sendRawTransaction', [raw])
  await receipt(target, hash, 60_000)
  return hash
}

export type TrafficSummary = { sent: number; acknowledged: number; timedOut: number; failed: number; firstError?: string }

/**
 * Token transfers from dev account 0 at `rate` per second, signed as they go (open loop, at most 100 in flight),
 * until `stop()`. Each send waits up to 5 s for its answer. `acknowledged` holds the hashes the server accepted.
 */
export async function startTraffic(target: Target, tokenAddress: Hex, rate: number, signal: AbortSignal) {
  let nonce = await nonceOf(target, dev.address)
  const acknowledged = new Set<Hex>()
  const summary: TrafficSummary = { sent: 0, acknowledged: 0, timedOut: 0, failed: 0 }
  const pending = new Set<Promise<void>>()
  let running = true
  const loop = (async () => {
    const t0 = performance.now()
    for (let i = 0; running && !signal.aborted; i++) {
      const wait = t0 + (i * 1000) / rate - performance.now()
      if (wait > 1) await sleep(wait)
      if (pending.size >= 100) continue
      const raw = await dev.signTransaction({
        chainId: CHAIN_ID,
        type: 'eip1559',
        nonce: nonce++,
        to: tokenAddress,
        data: transferData(SINK, 1n),
        gas: 60_000n,
        maxFeePerGas: MAX_FEE,
        maxPriorityFeePerGas: TIP,
      })
      summary.sent++
      const send = call<Hex>(target, 'eth_sendRawTransaction', [raw], REQUEST_TIMEOUT_MS).then(
        (hash) => {
          summary.acknowledged++
          acknowledged.add(hash.toLowerCase() as Hex)
        },
        (error: unknown) => {
          if (error instanceof Error && error.name === 'TimeoutError') summary.timedOut++
          else {
            summary.failed++
            summary.firstError ??= error instanceof Error ? error.message.slice(0, 120) : String(error)
          }
        },
      )
      const done = send.finally(() => pending.delete(done))
      pending.add(done)
    }
  })()
  return {
    acknowledged,
    async stop(): Promise<TrafficSummary> {
      running = false
      await loop
      await Promise.all(pending)
      return summary
    },
  }
}

/** The hash of a signed transaction, lower case. */
export function hashOf(raw: Hex): Hex {
  return keccak256(raw)
}

export type SocketStates = { established: number; closedByServer: number; gone: number }

/**
 * The kernel's view of client sockets to the server (/proc/net/tcp), without reading them: a socket the server
 * closed is in CLOSE_WAIT even while its reader is paused; one the server reset is gone.
 */
export function socketStates(serverPort: number, localPorts: number[]): SocketStates {
  const states = new Map<number, string>()
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/)
    if (fields.length < 4) continue
    const local = Number.parseInt(fields[1]!.split(':')[1]!, 16)
    const remote = Number.parseInt(fields[2]!.split(':')[1]!, 16)
    if (remote === serverPort) states.set(local, fields[3]!)
  }
  const counts: SocketStates = { established: 0, closedByServer: 0, gone: 0 }
  for (const port of localPorts) {
    const state = states.get(port)
    if (state === '01') counts.established++
    else if (state === undefined || state === '07') counts.gone++
    else counts.closedByServer++
  }
  return counts
}

/** Tiny EVM programs for the heavy scenarios, from opcodes and labels (`@name` defines one, `:name` pushes it). */
export function assemble(program: string): Hex {
  const opcodes: Record<string, number> = {
    STOP: 0x00,
    SUB: 0x03,
    ISZERO: 0x15,
    KECCAK256: 0x20,
    CALLDATALOAD: 0x35,
    CALLDATASIZE: 0x36,
    CALLDATACOPY: 0x37,
    POP: 0x50,
    SLOAD: 0x54,
    JUMP: 0x56,
    JUMPI: 0x57,
    JUMPDEST: 0x5b,
    GAS: 0x5a,
    DUP1: 0x80,
    SWAP1: 0x90,
    CALL: 0xf1,
    RETURN: 0xf3,
  }
  const tokens = program.trim().split(/\s+/)
  const labels = new Map<string, number>()
  // Labels are pushed with PUSH2, so every size is known before the addresses are.
  let at = 0
  for (const token of tokens) {
    if (token.startsWith('@')) labels.set(token.slice(1), at)
    else if (token.startsWith(':')) at += 3
    else if (token.startsWith('0x')) at += 1 + (token.length - 2) / 2
    else at += 1
  }
  let code = ''
  for (const token of tokens) {
    if (token.startsWith('@')) continue
    if (token.startsWith(':')) {
      const label = labels.get(token.slice(1))
      if (label === undefined) throw new Error(`no label ${token}`)
      code += `61${label.toString(16).padStart(4, '0')}`
    } else if (token.startsWith('0x')) {
      const bytes = (token.length - 2) / 2
      code += (0x5f + bytes).toString(16) + token.slice(2)
    } else {
      const op = opcodes[token]
      if (op === undefined) throw new Error(`unknown opcode ${token}`)
      code += op.toString(16).padStart(2, '0')
    }
  }
  return `0x${code}`
}

/** A 32-byte calldata word. */
export function word(value: number | bigint): Hex {
  return `0x${BigInt(value).toString(16).padStart(64, '0')}`
}
