/** What the command line says beside the help: the start banner, a failed start's words, the option meant. */
import { defaults } from '../chain/spec/config.ts'

import type { Flashchain, FlashchainOptions } from '../index.ts'

/** The option nearest to an unknown one, if one is near enough to be what was meant (a typo, a missing letter). */
export function nearestOption(unknown: string, options: readonly string[]): string | undefined {
  let best: { option: string; distance: number } | undefined
  for (const option of options) {
    const distance = editDistance(unknown, option)
    if (best === undefined || distance < best.distance) best = { option, distance }
  }
  return best !== undefined && best.distance <= Math.max(2, Math.floor(unknown.length / 4)) ? best.option : undefined
}

/** Levenshtein's distance: the fewest insertions, deletions and substitutions from `a` to `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

/** Why the start failed, in words that say what to do where there is something to do. */
export function startFailure(error: unknown, options: Pick<FlashchainOptions, 'host' | 'port'>): string {
  const code = (error as { code?: unknown } | undefined)?.code
  if (code === 'EADDRINUSE') {
    return `${options.host ?? '127.0.0.1'}:${options.port ?? 8545} is in use, by another node perhaps: choose another with --port N, or --port 0 for a free one`
  }
  return error instanceof Error ? error.message : String(error)
}

/**
 * What a new user needs to find the node's other doors, printed before the listening line: the WebSocket and
 * flashblocks URLs, the console page, how blocks are made, and where the chain lives (and whether it resumed).
 */
export function banner(flashchain: Flashchain, options: Pick<FlashchainOptions, 'mining' | 'blockTime' | 'flashblockInterval' | 'dataDir'>): string {
  const http = new URL(flashchain.url)
  const ws = `ws://${http.host}`
  const { blocks, fork } = flashchain.chain
  const head = blocks.head().header.number
  const mining = options.mining ?? defaults.mining
  const clock =
    mining === 'interval'
      ? `a block every ${options.blockTime ?? defaults.blockTime} ms, a flashblock every ${options.flashblockInterval ?? defaults.flashblockInterval} ms`
      : mining === 'auto'
        ? 'a block per transaction, as it arrives'
        : 'none until evm_mine or flashchain_preconfirm'
  const forked = fork.info()
  const first = forked?.number ?? 0n
  const data =
    options.dataDir === undefined
      ? 'in memory (--ephemeral): nothing is kept'
      : `${options.dataDir}${head > first ? `, resumed at block ${head}` : ''}`
  const lines = [
    ['WebSocket', ws],
    ['Flashblocks', `${ws}/flashblocks`],
    ['Console page', `${http.origin}/`],
    ['Mining', `${mining}: ${clock}`],
    ['Data', data],
    ...(forked === undefined ? [] : [['Fork', `${forked.upstream}, chain ${forked.chainId}, at block ${forked.number}`]]),
  ]
  return `${lines.map(([name, value]) => `${name!.padEnd(13)}${value}`).join('\n')}\n`
}
