// flashchain under abuse: one scenario per fault, each on a fresh flashchain process on 127.0.0.1, measuring the
// server's RSS peak and its RSS after the abusers left, another client's eth_chainId latency (p50/p99/max at
// 20 req/s over HTTP) and the fault's own outcome. bench/README.md ("Resilience") says how to read it.
//
//   node bench/resilience.ts [scenario ...] [--root <checkout>] [--label <name>]
//
// --root (or RESILIENCE_ROOT) runs another checkout's bin/flashchain.js with that checkout's `npm start` flags, so
// the same script measures the code before and after a change. Settings (environment): RESILIENCE_SECONDS (per
// scenario, at most and by default 60), RESILIENCE_REST (quiet seconds before the RSS "after", default 10),
// RESILIENCE_RSS_CAP_MB (the server is killed past it, default 3072), RESILIENCE_LABEL (the results file's label).
import { mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { parseArgs } from 'node:util'

import {
  alive,
  probe,
  REST,
  round,
  RSS_CAP_MB,
  sampleRss,
  SECONDS,
  startTarget,
  stopTarget,
  targetRoot,
  type ProbeSummary,
  type RssSummary,
  type Target,
} from './resilience-harness.ts'
import { scenarios, type Outcome } from './resilience-scenarios.ts'
import { BENCH, rssMB, sleep } from './servers.ts'

type Result = { name: string; fault: string; seconds: number; rss?: RssSummary; probe?: ProbeSummary; outcome?: Outcome; error?: string }

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { root: { type: 'string' }, label: { type: 'string' } },
})
const root = targetRoot(values.root)
const label = values.label ?? process.env.RESILIENCE_LABEL ?? 'latest'
const unknown = positionals.filter((name) => !scenarios.some((scenario) => scenario.name === name))
if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${scenarios.map((scenario) => scenario.name).join(', ')}`)
const chosen = positionals.length === 0 ? scenarios : scenarios.filter((scenario) => positionals.includes(scenario.name))

let current: Target | undefined
// Ctrl-C or a crash of the bench must not leave a server behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    current?.child.kill('SIGKILL')
    process.exit(130)
  })
}
process.on('exit', () => current?.child.kill('SIGKILL'))

async function runScenario(scenario: (typeof scenarios)[number]): Promise<Result> {
  const t0 = performance.now()
  const result: Result = { name: scenario.name, fault: scenario.fault, seconds: 0 }
  const target = await startTarget(root, scenario.server)
  current = target
  const abort = new AbortController()
  const sampler = sampleRss(target, abort)
  let prober: ReturnType<typeof probe> | undefined
  let startMB = sampler.now()
  try {
    result.outcome = await scenario.run({
      target,
      signal: abort.signal,
      begin: () => {
        startMB = sampler.now()
        prober = probe(target)
      },
    })
  } catch (error) {
    result.error = abort.signal.aborted ? String((abort.signal.reason as Error).message) : error instanceof Error ? error.message : String(error)
  }
  result.probe = await prober?.stop()
  if (alive(target)) await sleep(REST * 1000)
  const rss = sampler.stop()
  result.rss = { ...rss, startMB: round(startMB), peakMB: round(rss.peakMB), ...(alive(target) ? { afterMB: round(rssMB(target.pid)) } : {}) }
  if (rss.killedAtMB !== undefined) result.error = `killed at ${Math.round(rss.killedAtMB)} MB (cap ${RSS_CAP_MB} MB)`
  else if (!alive(target))
    result.error ??= `the server exited (${target.child.exitCode ?? target.child.signalCode}): ${target.output.slice(-3).join(' | ')}`
  await stopTarget(target)
  current = undefined
  result.seconds = round((performance.now() - t0) / 1000)
  return result
}

function summary(outcome: Outcome | undefined): string {
  if (outcome === undefined) return ''
  return Object.entries(outcome)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}: ${value}`)
    .join('; ')
}

const results: Result[] = []
console.log(`flashchain resilience: ${root}, ${SECONDS} s per scenario, RSS cap ${RSS_CAP_MB} MB, ${REST} s of rest before RSS after`)
for (const scenario of chosen) {
  process.stdout.write(`${scenario.name}: ${scenario.fault} … `)
  const result = await runScenario(scenario)
  results.push(result)
  console.log(`${result.seconds} s${result.error === undefined ? '' : ` (${result.error})`}`)
}

const header = ['scenario', 'RSS start', 'peak', 'after', 'probe p50', 'p99', 'max', 'failed']
const rows = results.map((r) => [
  r.name,
  String(r.rss?.startMB ?? ''),
  r.rss?.killedAtMB === undefined ? String(r.rss?.peakMB ?? '') : `killed at ${Math.round(r.rss.killedAtMB)}`,
  String(r.rss?.afterMB ?? '-'),
  String(r.probe?.p50 ?? ''),
  String(r.probe?.p99 ?? ''),
  String(r.probe?.max ?? ''),
  r.probe === undefined ? '' : `${r.probe.failed}/${r.probe.sent}`,
])
const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)))
const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')
console.log(`\nRSS in MB, probe (eth_chainId every 50 ms, 5 s timeout) in ms\n${line(header)}`)
for (const row of rows) console.log(line(row))
console.log('')
for (const r of results) console.log(`${r.name}: ${r.error === undefined ? '' : `${r.error}; `}${summary(r.outcome)}`)

mkdirSync(`${BENCH}results`, { recursive: true })
const file = `${BENCH}results/resilience-${label}.json`
writeFileSync(
  file,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      machine: {
        cores: os.cpus().length,
        cpu: os.cpus()[0]?.model,
        memoryMB: Math.round(os.totalmem() / 1048576),
        load: os.loadavg().map((load) => round(load, 2)),
      },
      settings: { seconds: SECONDS, rest: REST, rssCapMB: RSS_CAP_MB, label },
      results,
    },
    null,
    2,
  )}\n`,
)
console.log(`\nwrote ${file}`)
