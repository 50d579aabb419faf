// The fork benchmark's peers, each forking the upstream (through the counting proxy) at a pinned block: anvil with
// its default storage cache under a HOME of the bench's own, and flashchain with a --fork-cache directory of the
// bench's own, so that a cold run starts from an empty cache and a warm one from what an earlier run left.
import { spawn, type ChildProcess } from 'node:child_process'

import { openConnection, rpc } from './http.ts'
import { BENCH, freePort, INSTALLED_FLASHCHAIN, ROOT, sleep, stopServer } from './servers.ts'

export type ForkPeerName = 'anvil' | 'flashchain'

export type ForkPeer = {
  url: string
  /** ms from spawn to the first answered eth_chainId. */
  startupMs: number
  child: ChildProcess
}

export type ForkOptions = {
  upstream: string
  blockNumber: bigint
  /** anvil: its HOME (it caches in ~/.foundry/cache/rpc); flashchain: its --fork-cache. */
  cacheDir: string
}

/** Thrown when this flashchain has no fork mode yet (the CLI rejects --fork-url): the run skips it. */
export class ForkUnsupported extends Error {}

const ANVIL = `${BENCH}node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil`
const READY_TIMEOUT_MS = 60_000
const running = new Set<ChildProcess>()

function command(name: ForkPeerName, port: number, options: ForkOptions): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
  const listen = ['--host', '127.0.0.1', '--port', String(port)]
  const fork = ['--fork-url', options.upstream, '--fork-block-number', String(options.blockNumber)]
  if (name === 'anvil') {
    // A HOME of its own: anvil's RPC cache is fresh per cold run and never the user's.
    return { file: ANVIL, args: [...listen, ...fork, '--quiet'], env: { ...process.env, HOME: options.cacheDir } }
  }
  // --mining auto: a transaction is mined as it arrives, as on anvil.
  const args = [
    INSTALLED_FLASHCHAIN ?? `${ROOT}bin/flashchain.js`,
    ...listen,
    ...fork,
    '--fork-cache',
    options.cacheDir,
    '--ephemeral',
    '--mining',
    'auto',
    '--quiet',
  ]
  return { file: process.execPath, args, env: process.env }
}

/** Spawns a forking peer and resolves once it answers eth_chainId 31337 (polled every 5 ms). */
export async function startForkPeer(name: ForkPeerName, options: ForkOptions): Promise<ForkPeer> {
  const port = await freePort()
  const { file, args, env } = command(name, port, options)
  const output: string[] = []
  let noForkMode: string | undefined
  const t0 = performance.now()
  const child = spawn(file, args, { cwd: BENCH, env, stdio: ['ignore', 'pipe', 'pipe'] })
  running.add(child)
  child.once('exit', () => running.delete(child))
  // Both pipes are drained, or a chatty peer would block on a full pipe; the last lines go into errors.
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      noForkMode ??= /^.*unknown option '--fork-url'.*$/im.exec(chunk)?.[0]
      output.push(...chunk.split('\n'))
      if (output.length > 40) output.splice(0, output.length - 40)
    })
  }
  let exited: string | undefined
  child.once('exit', (code, signal) => (exited = `exited with ${signal ?? code}`))
  child.once('error', (error) => (exited = `failed to start: ${error.message}`))

  const connection = openConnection(port)
  try {
    for (;;) {
      if (exited !== undefined && noForkMode !== undefined) throw new ForkUnsupported(`no fork mode in this checkout (${noForkMode.trim()})`)
      if (exited !== undefined) throw new Error(`${name} ${exited}:\n${output.join('\n')}`)
      const chainId = await rpc<string>(connection, 'eth_chainId').catch(() => undefined)
      if (chainId !== undefined) {
        if (BigInt(chainId) !== 31337n) throw new Error(`${name} answered chain id ${chainId}, not the upstream's 31337`)
        break
      }
      connection.close()
      if (performance.now() - t0 > READY_TIMEOUT_MS) throw new Error(`${name} did not answer within 60 s:\n${output.join('\n')}`)
      await sleep(5)
    }
  } catch (error) {
    await stopServer({ child })
    throw error
  } finally {
    connection.close()
  }
  return { url: `http://127.0.0.1:${port}`, startupMs: performance.now() - t0, child }
}

/** Stops every forking peer still running (end of run, error). */
export async function stopForkPeers(): Promise<void> {
  await Promise.all([...running].map((child) => stopServer({ child })))
}

/** Kills what is left synchronously (exit handlers cannot wait). */
export function killForkPeersNow(): void {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
}
