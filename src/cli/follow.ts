/**
 * `flashchain follow <ws-url> [--rpc <http-url>]`: a replica of a flashchain sequencer (docs/scaling-out.md), behind
 * the same JSON-RPC endpoint as any node.
 */
import { parseArgs } from 'node:util'

import { createReplica } from '../follow/replica.ts'
import { startMemoryTrim } from '../runtime/memoryTrim.ts'
import { fail as failWith, integer, list } from './arguments.ts'
import { startFailure } from './messages.ts'

import type { Replica } from '../follow/replica.ts'

/** A command line that cannot start, pointing to this command's help. */
function fail(message: string): never {
  return failWith(message, 'flashchain follow --help')
}

export const followUsage = `Usage: flashchain follow <ws-url> [options]

A replica of a flashchain sequencer: it loads the sequencer's chain, follows its flashblocks stream at <ws-url>
(ws://host:port/flashblocks), answers every read locally (pending, latest, history, subscriptions, its own
/flashblocks), and forwards writes (transactions, the wallet's methods, signing, test control) to the sequencer.

Options:
  --rpc <url>                   the sequencer's JSON-RPC endpoint (default: <ws-url>'s host, over http)
  --host <address>              interface to bind (default 127.0.0.1)
  --port <number>               port to listen on (default 8545)
  --data-dir <path>             where the replica keeps the chain it loads (default: a temporary directory); it
                                starts from the sequencer's chain each time, never from what it kept
  --flashblock-interval <ms>    the sequencer's flashblock interval (default 200): the stream is connected again
                                after three intervals without a frame while the sequencer publishes
  --max-lag <ms>                GET /health answers 503 while the replica is further behind than this (default 1000)
  --wallet-token <token>        the sequencer's --wallet-token, for its snapshot (GET /snapshot) on a non-loopback bind
  --workers <count>             execution worker threads for calls and estimates (default: as a node's)
  --max-connections <count>     most connections open at once (default 1000)
  --allowed-hosts <names>       Host names to answer besides localhost and the bind address; * for any
  --quiet                       print only the listening line and errors
  -h, --help                    show this help
`

const parseOptions = {
  rpc: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  'flashblock-interval': { type: 'string' },
  'max-lag': { type: 'string' },
  'wallet-token': { type: 'string' },
  workers: { type: 'string' },
  'max-connections': { type: 'string' },
  'allowed-hosts': { type: 'string' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

export function parseFollowCommandLine(argv: string[]) {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; strict: true; allowPositionals: true; options: typeof parseOptions }>>
  try {
    parsed = parseArgs({ args: argv, strict: true, allowPositionals: true, options: parseOptions })
  } catch (error) {
    fail(`follow: ${error instanceof Error ? error.message : String(error)}`)
  }
  const { values, positionals } = parsed
  if (values.help === true) {
    process.stdout.write(followUsage)
    process.exit(0)
  }
  if (positionals.length !== 1) fail("follow takes one argument, the sequencer's stream: flashchain follow ws://host:port/flashblocks")
  const source = positionals[0]!
  if (!URL.canParse(source) || !/^wss?:$/.test(new URL(source).protocol)) fail(`follow: the stream must be a ws:// or wss:// URL, got "${source}"`)
  const streamUrl = new URL(source)
  const rpc = values.rpc ?? `${streamUrl.protocol === 'wss:' ? 'https' : 'http'}://${streamUrl.host}`
  if (!URL.canParse(rpc) || !/^https?:$/.test(new URL(rpc).protocol)) fail(`--rpc must be an http or https URL, got "${rpc}"`)
  return {
    source,
    rpc,
    host: values.host,
    port: integer('port', values.port),
    dataDir: values['data-dir'],
    flashblockInterval: integer('flashblock-interval', values['flashblock-interval'], { min: 1 }),
    maxLagMs: integer('max-lag', values['max-lag'], { min: 1 }),
    walletToken: values['wallet-token'],
    workers: integer('workers', values.workers),
    maxConnections: integer('max-connections', values['max-connections'], { min: 1 }),
    allowedHosts: list(values['allowed-hosts']),
    quiet: values.quiet === true,
  }
}

export async function followMain(argv: string[]): Promise<void> {
  const { quiet, ...options } = parseFollowCommandLine(argv)
  const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`)
  let replica: Replica
  try {
    replica = await createReplica({ ...options, log: quiet ? undefined : log })
  } catch (error) {
    process.stderr.write(`flashchain: ${startFailure(error, options)}\n`)
    process.exit(1)
  }
  const stopMemoryTrim = startMemoryTrim({ collectAtFirstRest: true })
  if (!quiet) process.stdout.write(`Following ${options.source}; writes go to ${options.rpc}\n`)
  process.stdout.write(`Listening on ${replica.url}\n`)
  let closing = false
  const shutdown = () => {
    if (closing) return
    closing = true
    stopMemoryTrim()
    replica.close().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`flashchain: shutdown failed: ${error instanceof Error ? error.stack : error}\n`)
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', shutdown)
  process.on('SIGTERM', shutdown)
}
