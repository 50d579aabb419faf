// The printed table and summary, and a chart of throughput: SVG (text, no library needed), and a PNG of it
// where `rsvg-convert` (Debian's librsvg2-bin) is installed.
import { execFileSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'

import type { Report, RunResult } from './run.ts'
import type { PeerName } from './servers.ts'

const PEERS: PeerName[] = ['flashchain', 'anvil', 'hardhat']

function num(value: number | undefined, digits = 0): string {
  if (value === undefined || !Number.isFinite(value)) return '—'
  return value.toFixed(digits)
}

function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return '—'
  return `${(a / b).toFixed(2)}×`
}

function ms(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '—'
  return value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0)
}

/**
 * One row per workload and connection count: for each server req/s, p50 and p99 (ms) and its CPU time per
 * request (µs), then flashchain ÷ each peer for req/s (higher is better for flashchain) and for CPU per request
 * (lower is better for flashchain).
 */
export function renderTable(report: Report): string {
  const present = PEERS.filter((p) => Object.values(report.results).some((row) => row[p] !== undefined))
  const others = present.filter((p) => p !== 'flashchain')
  const cell = (r: RunResult | undefined) =>
    [num(r?.reqPerSec).padStart(7), ms(r?.p50).padStart(6), ms(r?.p99).padStart(6), num(r?.cpuUsPerReq).padStart(6)].join(' ')
  const head1 = ['workload'.padEnd(32), 'conn', ...present.map((p) => `| ${p.padEnd(28)}`), ...others.map((p) => `| fc/${p}`.padEnd(16))].join(' ')
  const head2 = [
    ''.padEnd(32),
    '    ',
    ...present.map(() => `| ${'req/s'.padStart(7)} ${'p50'.padStart(6)} ${'p99'.padStart(6)} ${'µs/req'.padStart(6)}`),
    ...others.map(() => `| ${'req/s'.padStart(6)} ${'cpu'.padStart(6)} `),
  ].join(' ')
  const lines = [head1, head2, '-'.repeat(head2.length)]
  for (const workload of report.workloads) {
    for (const connections of report.settings.connections) {
      const row = report.results[`${workload.id}@${connections}`] ?? {}
      const fc = row.flashchain
      lines.push(
        [
          workload.title.padEnd(32),
          String(connections).padStart(4),
          ...present.map((p) => `| ${cell(row[p])}`),
          ...others.map(
            (p) => `| ${ratio(fc?.reqPerSec, row[p]?.reqPerSec).padStart(6)} ${ratio(fc?.cpuUsPerReq, row[p]?.cpuUsPerReq).padStart(6)} `,
          ),
        ].join(' '),
      )
    }
  }
  lines.push(
    '',
    "req/s: answered without error in the measured window; p50/p99: ms per request; µs/req: the server's own CPU time (user + system, all threads) per request.",
  )
  if (report.settings.passes > 1)
    lines.push(
      `Read workloads: the fastest of ${report.settings.passes} passes, each on fresh servers, the peers in one order and then the other (results JSON: passes).`,
    )
  lines.push('fc/peer: flashchain ÷ peer, req/s (above 1: flashchain faster) and CPU per request (below 1: flashchain cheaper).')
  return lines.join('\n')
}

export function renderSummary(report: Report): string {
  const lines: string[] = []
  const pre = report.flashchain.preconfirmation
  if (pre !== undefined) {
    const goal = pre.intervalMs + 20
    const mark = (p99: number) => (p99 <= goal ? `meets ≤ ${goal} ms` : `misses ≤ ${goal} ms`)
    lines.push(`flashchain pre-confirmation (flashblock interval ${pre.intervalMs} ms; send answered → receipt visible):`)
    lines.push(
      `  idle:                  p50 ${ms(pre.idle.p50)} ms  p99 ${ms(pre.idle.p99)} ms  max ${ms(pre.idle.max)} ms  (${pre.idle.samples} tx, ${pre.idle.timeouts} timeouts; ${mark(pre.idle.p99)})`,
    )
    lines.push(
      `  under ${pre.loaded.backgroundTxPerSec} tx/s:        p50 ${ms(pre.loaded.p50)} ms  p99 ${ms(pre.loaded.p99)} ms  max ${ms(pre.loaded.max)} ms  (${pre.loaded.samples} tx in ${num(pre.loaded.seconds)} s, ${pre.loaded.timeouts} timeouts; ${mark(pre.loaded.p99)})`,
      `                         background: ${pre.loaded.backgroundSent} sent, ${pre.loaded.backgroundErrors} errors, ${num(pre.loaded.backgroundAchievedTxPerSec)} tx/s reached of ${pre.loaded.backgroundTxPerSec} aimed at`,
    )
    lines.push(
      `  eth_sendRawTransactionSync: p50 ${ms(pre.sync.p50)} ms  p99 ${ms(pre.sync.p99)} ms  max ${ms(pre.sync.max)} ms  (request → receipt, ${pre.sync.samples} tx, ${pre.sync.timeouts} failures)`,
    )
  }
  const runs = report.flashchain.evmRuns
  if (runs !== undefined) {
    lines.push(
      `flashchain EVM runs per ERC20-transfer estimate: median ${runs.erc20.median}, min ${runs.erc20.min}, max ${runs.erc20.max}, mean ${runs.erc20.mean.toFixed(2)} over ${runs.erc20.samples} (goal ≤ 3: ${runs.erc20.max <= 3 ? 'met' : 'missed'}; gas ${runs.erc20.gas}; answered from the cache: ${runs.erc20.cacheHits}); ETH transfer: ${runs.transfer.min}–${runs.transfer.max} runs (gas ${runs.transfer.gas})`,
    )
  }
  const mined = PEERS.filter((name) => report.peers[name]?.mineMs !== undefined)
  if (mined.length > 0) {
    const figures = mined.map((name) => `${name} ${num(report.peers[name]!.mineMs!)} ms`).join(', ')
    lines.push(`${report.settings.mineBlocks ?? ''} empty blocks in one anvil_mine (hardhat_mine): ${figures}`)
    const reverted = mined.filter((name) => report.peers[name]!.revertMs !== undefined)
    if (reverted.length > 0) {
      lines.push(
        `evm_revert after them (a change and a block since the snapshot), median: ${reverted.map((name) => `${name} ${report.peers[name]!.revertMs!.toFixed(1)} ms`).join(', ')}`,
      )
    }
  }
  lines.push('start to first answer (spawn → eth_chainId), median of samples; RSS (VmRSS) after the load:')
  for (const name of PEERS) {
    const info = report.peers[name]
    if (info === undefined) continue
    if (info.skipped !== undefined && info.startupMs.length === 0) {
      lines.push(`  ${name.padEnd(11)} skipped: ${info.skipped}`)
      continue
    }
    const rss = Object.entries(info.rssMB)
      .map(([label, mb]) => `${num(mb)} MB ${label}`)
      .join(', ')
    const startGoal = name === 'flashchain' ? ` (goal ≤ 1000 ms: ${info.startupMedianMs <= 1000 ? 'met' : 'missed'})` : ''
    // The goal is RSS after a minute of load: the reads are that minute, and the transaction run at the most
    // connections ends the bench. Judged once each has passed (at rest), with the verdicts for the moment the reads
    // end and 5 s later beside it, since the phrase reads both ways.
    const atRest = info.rssMB['at rest after reads']
    const rightAfter = info.rssMB['after reads']
    const fiveAfter = info.rssMB['5 s after reads']
    const lastTxRun = `transactions @${Math.max(...report.settings.connections)}`
    const afterBench = info.rssMB[`at rest after ${lastTxRun}`]
    const verdict = (mb: number | undefined, goal = 150) => (mb === undefined ? 'not measured' : mb <= goal ? 'met' : 'missed')
    const idle = info.rssMB['at rest after start']
    const rssGoal =
      name === 'flashchain' && atRest !== undefined
        ? ` (goal ≤ 80 MB idle after start: ${verdict(idle, 80)}; goal ≤ 150 MB after a minute of load: ${verdict(atRest)} at rest after the reads, ${verdict(rightAfter)} right after them, ${verdict(fiveAfter)} 5 s after them, ${verdict(afterBench)} at rest after the ${lastTxRun})`
        : ''
    lines.push(
      `  ${name.padEnd(11)} start ${num(info.startupMedianMs)} ms [${info.startupMs.map((v) => num(v)).join(', ')}]${startGoal}; RSS ${rss || '—'}${rssGoal}${info.skipped !== undefined ? `; ${info.skipped}` : ''}`,
    )
  }
  if (report.notes.length > 0) lines.push('notes:', ...report.notes.map((n) => `  - ${n}`))
  return lines.join('\n')
}

const COLORS: Record<PeerName, string> = { flashchain: '#2b6cb0', anvil: '#c05621', hardhat: '#b7791f' }

/**
 * A grouped bar chart of req/s per workload and connection count, log scale, as SVG, converted to PNG when
 * `rsvg-convert` is on the PATH (otherwise a PNG left by an earlier run is removed, so it never disagrees with
 * the JSON). Returns the paths written.
 */
export function writeChart(report: Report, pngPath: string): string[] {
  const path = pngPath.replace(/\.png$/, '.svg')
  const rows = report.workloads.flatMap((w) =>
    report.settings.connections.map((c) => ({ label: `${w.title} @${c}`, row: report.results[`${w.id}@${c}`] ?? {} })),
  )
  const present = PEERS.filter((p) => rows.some((r) => r.row[p] !== undefined))
  if (present.length === 0) return []
  const max = Math.max(...rows.flatMap((r) => present.map((p) => r.row[p]?.reqPerSec ?? 0)))
  const decades = Math.max(1, Math.ceil(Math.log10(Math.max(max, 10))))
  const left = 250
  const width = 640
  const bar = 9
  const group = bar * present.length + 8
  const top = 50
  const height = top + rows.length * group + 40
  const x = (value: number) => (value <= 1 ? 0 : (Math.log10(value) / decades) * width)
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${left + width + 120}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="18" font-size="14" font-weight="bold">JSON-RPC throughput, req/s (log scale) — ${report.date.slice(0, 10)}, ${report.machine.cpus} cores, node ${report.node}</text>`,
  ]
  present.forEach((p, i) => {
    parts.push(`<rect x="${10 + i * 110}" y="28" width="10" height="10" fill="${COLORS[p]}"/><text x="${24 + i * 110}" y="37">${p}</text>`)
  })
  for (let d = 0; d <= decades; d++) {
    const gx = left + (d / decades) * width
    parts.push(
      `<line x1="${gx}" y1="${top - 4}" x2="${gx}" y2="${height - 30}" stroke="#ddd"/><text x="${gx}" y="${height - 16}" text-anchor="middle">${10 ** d}</text>`,
    )
  }
  rows.forEach((r, i) => {
    const gy = top + i * group
    parts.push(`<text x="${left - 6}" y="${gy + (bar * present.length) / 2 + 4}" text-anchor="end">${r.label}</text>`)
    present.forEach((p, j) => {
      const value = r.row[p]?.reqPerSec
      if (value === undefined) return
      parts.push(`<rect x="${left}" y="${gy + j * bar}" width="${x(value).toFixed(1)}" height="${bar - 1}" fill="${COLORS[p]}"/>`)
      parts.push(`<text x="${left + x(value) + 4}" y="${gy + j * bar + bar - 1}" font-size="9">${value.toFixed(0)}</text>`)
    })
  })
  parts.push('</svg>')
  writeFileSync(path, `${parts.join('\n')}\n`)
  try {
    execFileSync('rsvg-convert', [path, '-o', pngPath], { stdio: 'ignore' })
    return [path, pngPath]
  } catch {
    rmSync(pngPath, { force: true })
    return [path]
  }
}
