// Starting, watching and stopping the servers under test: flashchain from this repository, anvil and Hardhat 3
// from bench/node_modules (bench/package.json). Every process started here is tracked by PID and stopped at the
// end, on error and on Ctrl-C too (SIGTERM, then SIGKILL).
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

import { openConnection, rpc } from './http.ts'

export type PeerName = 'flashchain' | 'anvil' | 'hardhat'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const BENCH = fileURLToPath(new URL('.', import.meta.url))
const ANVIL = `${BENCH}node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil`
const HARDHAT_CLI = `${BENCH}node_modules/hardhat/dist/src/cli.js`
const HARDHAT_PROJECT = `${BENCH}peers/hardhat`
/**
 * BENCH_FLASHCHAIN names the flashchain command to measure instead of this repository's: an installed package's
 * `node_modules/.bin/flashchain` (or its bin/flashchain.js), so that a packed and installed flashchain can be compared
 * with the checkout. It runs with the same node flags, as `npm start` would run it.
 */
export const INSTALLED_FLASHCHAIN = process.env.BENCH_FLASHCHAIN === undefined ? undefined : realpathSync(process.env.BENCH_FLASHCHAIN)

export type Server = {
  name: PeerName
  label: string
  pid: number
  port: number
  /** ms from spawn to the first successful eth_chainId. */
  startupMs: number
  /** The last lines the server wrote (stdout and stderr), for error reports. */
  output: string[]
  /** Every stderr line, when asked for (flashchain's EVM-run log). */
  lines?: string[]
  child: ChildProcess
}

const running = new Set<ChildProcess>()

/** Why a peer cannot run here, or undefined when it can. */
export function unavailable(name: PeerName): string | undefined {
  if (name === 'anvil' && !existsSync(ANVIL)) return `anvil is not installed (${ANVIL} is missing; run npm --prefix bench install)`
  if (name === 'hardhat') {
    if (!existsSync(HARDHAT_CLI)) return `Hardhat is not installed (${HARDHAT_CLI} is missing; run npm --prefix bench install)`
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number]
    if (major < 22 || (major === 22 && minor < 13)) return `Hardhat 3 needs Node ≥ 22.13, this is ${process.versions.node}`
  }
  return undefined
}

/** A free TCP port on 127.0.0.1 (the OS picks it; the server is told it on its command line). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

export type StartOptions = {
  /** flashchain only: `manual` (the default here) or `interval`. */
  mining?: 'manual' | 'interval'
  /** flashchain only: log per-request detail (no --quiet; --debug) and collect every stderr line. */
  verbose?: boolean
  label?: string
  /** More command-line options (the peer's own spelling). */
  args?: string[]
  /** flashchain only: keep the chain in this data dir instead of in memory (`--ephemeral`). */
  dataDir?: string
  /** flashchain only: start `flashchain follow` of this stream (ws://…/flashblocks) instead of a node of its own. */
  follow?: string
}

function command(name: PeerName, port: number, options: StartOptions): { file: string; args: string[]; cwd: string; env?: NodeJS.ProcessEnv } {
  switch (name) {
    case 'flashchain': {
      if (options.follow !== undefined) {
        const args = [...startCommand(), 'follow', options.follow, '--host', '127.0.0.1', '--port', String(port), '--quiet', ...(options.args ?? [])]
        return { file: process.execPath, args, cwd: ROOT }
      }
      // What `npm start` runs (its node flags and bin/flashchain.js, which keeps a compile cache), on this Node.
      const storage = options.dataDir === undefined ? ['--ephemeral'] : ['--data-dir', options.dataDir]
      const args = [...startCommand(), '--host', '127.0.0.1', '--port', String(port), ...storage]
      // --debug logs "eth_estimateGas: GAS after N EVM runs" for each estimate.
      args.push(options.verbose === true ? '--debug' : '--quiet')
      args.push('--mining', options.mining ?? 'manual', ...(options.args ?? []))
      return { file: process.execPath, args, cwd: ROOT }
    }
    case 'anvil':
      // Defaults otherwise: chain id 31337, the standard test mnemonic's 10 accounts with 10000 ETH, automine.
      return {
        file: ANVIL,
        args: ['--host', '127.0.0.1', '--port', String(port), '--chain-id', '31337', '--quiet', ...(options.args ?? [])],
        cwd: BENCH,
      }
    case 'hardhat':
      // `hardhat node` on the default EDR network: chain id 31337, the standard test mnemonic, automine.
      return {
        file: process.execPath,
        args: [HARDHAT_CLI, 'node', '--hostname', '127.0.0.1', '--port', String(port)],
        cwd: HARDHAT_PROJECT,
        env: { ...process.env, HARDHAT_DISABLE_TELEMETRY: 'true', NO_COLOR: '1', FORCE_COLOR: '0' },
      }
  }
}

/** `npm start`'s command after `node`, with the script made absolute (or BENCH_FLASHCHAIN's): `--flags… bin/flashchain.js`. */
function startCommand(): string[] {
  const { scripts } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: { start: string } }
  const [node, ...rest] = scripts.start.split(/\s+/)
  if (node !== 'node') throw new Error(`npm start is "${scripts.start}", not a node command`)
  return rest.map((part) => (part.startsWith('-') ? part : (INSTALLED_FLASHCHAIN ?? `${ROOT}${part}`)))
}

/** Spawns a server and resolves once it answers eth_chainId (polled every 5 ms), timing spawn to answer. */
export async function startServer(name: PeerName, options: StartOptions = {}): Promise<Server> {
  const port = await freePort()
  const { file, args, cwd, env } = command(name, port, options)
  const output: string[] = []
  const lines: string[] | undefined = options.verbose === true ? [] : undefined
  const t0 = performance.now()
  const child = spawn(file, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] })
  running.add(child)
  child.once('exit', () => running.delete(child))
  const keep = (stream: NodeJS.ReadableStream, all?: string[]) => {
    let rest = ''
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n')
      rest = parts.pop()!
      for (const line of parts) {
        all?.push(line)
        output.push(line)
        if (output.length > 40) output.shift()
      }
    })
  }
  // Both pipes are always drained, or a chatty server would block on a full pipe.
  keep(child.stdout!)
  keep(child.stderr!, lines)
  let exited: string | undefined
  child.once('exit', (code, signal) => (exited = `exited with ${signal ?? code}`))
  child.once('error', (error) => (exited = `failed to start: ${error.message}`))

  const connection = openConnection(port)
  try {
    const deadline = t0 + 60_000
    for (;;) {
      if (exited !== undefined) throw new Error(`${name} ${exited}:\n${output.join('\n')}`)
      try {
        const chainId = await rpc<string>(connection, 'eth_chainId')
        if (BigInt(chainId) !== 31337n) throw new Error(`${name} answered chain id ${chainId}, not 31337`)
        break
      } catch (error) {
        if (error instanceof Error && error.message.includes('not 31337')) throw error
        connection.close()
        if (performance.now() > deadline) throw new Error(`${name} did not answer within 60 s:\n${output.join('\n')}`)
        await sleep(5)
      }
    }
  } catch (error) {
    await stopServer({ child } as Server)
    throw error
  } finally {
    connection.close()
  }
  const startupMs = performance.now() - t0
  const server: Server = { name, label: options.label ?? name, pid: child.pid!, port, startupMs, output, lines, child }
  if (name === 'hardhat') {
    // `hardhat node` prints every request; flashchain runs --quiet and anvil --quiet, so Hardhat is quiet too.
    const control = openConnection(port)
    try {
      await rpc(control, 'hardhat_setLoggingEnabled', [false])
    } finally {
      control.close()
    }
  }
  return server
}

/** SIGTERM, then SIGKILL after `graceMs`. Resolves once the process is gone. */
export async function stopServer(server: Pick<Server, 'child'>, graceMs = 3000): Promise<void> {
  const { child } = server
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }, graceMs)
  await gone
  clearTimeout(timer)
}

/** Stops every server still running (end of run, error, signal). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => stopServer({ child })))
}

/** Kills what is left synchronously (process exit handlers cannot wait). */
export function killAllNow(): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
}

const CLOCK_TICKS = 100 // sysconf(_SC_CLK_TCK) on Linux x86-64

/** The process's user + system CPU time so far, in seconds (all its threads), from /proc/PID/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // The command name may hold spaces and parentheses: fields are counted after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
}

/** The process's resident set, MB, from /proc/PID/status. */
export function rssMB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(status)
  return match === null ? Number.NaN : Number(match[1]) / 1024
}

/** Threads of the process (anvil and Hardhat's EDR are multi-threaded; flashchain has its main thread, its execution workers and Node's). */
export function threadCount(pid: number): number {
  const match = /Threads:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match === null ? Number.NaN : Number(match[1])
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
