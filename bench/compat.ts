// The compatibility suites (test/compat) side by side: each suite, on each mining mode, once against flashchain and
// once against anvil 1.7.1 (the npm binary test/compat installs), with the same tools and the same assertions.
// Prints, per suite and node, the cases passed and the wall time of the run (the node's start included), then the
// failing cases. `npm run compat` installs test/compat and runs this file; it is not part of `npm test`.
// Settings (environment): COMPAT_SUITES (default "hardhat,foundry"), COMPAT_NODES (default "flashchain,anvil").
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

type VitestReport = {
  testResults: { assertionResults: { ancestorTitles: string[]; title: string; status: string; failureMessages: string[] }[] }[]
}
type Outcome = { passed: number; total: number; seconds: number; failures: string[] }

const root = resolve(import.meta.dirname, '..')
const suites = (process.env.COMPAT_SUITES ?? 'hardhat,foundry').split(',')
const nodes = (process.env.COMPAT_NODES ?? 'flashchain,anvil').split(',')
const modes = ['interval', 'auto']
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
const scratch = mkdtempSync(join(tmpdir(), 'flashchain-compat-reports-'))

/** A tool's failure reads as its command, then the tool's own error on the next line: keep both. */
const firstLines = (message: string) =>
  message
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, 2)
    .join(' | ')

/** One vitest run of one suite's describe block for one mode, against one node. */
function runSuite(suite: string, mode: string, node: string): Outcome {
  const report = join(scratch, `${suite}-${mode}-${node}.json`)
  const started = performance.now()
  const run = spawnSync(
    process.execPath,
    [vitest, 'run', `test/compat/${suite}.test.ts`, `--testNamePattern=mining ${mode} `, '--reporter=json', `--outputFile=${report}`],
    { cwd: root, env: { ...process.env, COMPAT_NODE: node }, encoding: 'utf8' },
  )
  if (!existsSync(report)) throw new Error(`vitest wrote no report for ${suite} --mining ${mode} on ${node}:\n${run.stderr}${run.stdout}`)
  const seconds = (performance.now() - started) / 1000
  const results = (JSON.parse(readFileSync(report, 'utf8')) as VitestReport).testResults.flatMap((file) => file.assertionResults)
  const ran = results.filter((result) => result.status === 'passed' || result.status === 'failed')
  return {
    passed: ran.filter((result) => result.status === 'passed').length,
    total: ran.length,
    seconds,
    failures: ran.filter((result) => result.status === 'failed').map((result) => `${result.title}: ${firstLines(result.failureMessages[0] ?? '')}`),
  }
}

const rows: string[][] = [['suite', 'mining', ...nodes.flatMap((node) => [`${node} passed`, `${node} s`])]]
const failures: string[] = []
for (const suite of suites) {
  for (const mode of modes) {
    const row = [suite, mode]
    for (const node of nodes) {
      const outcome = runSuite(suite, mode, node)
      row.push(`${outcome.passed}/${outcome.total}`, outcome.seconds.toFixed(1))
      for (const failure of outcome.failures) failures.push(`${node} ${suite} --mining ${mode}: ${failure}`)
    }
    rows.push(row)
  }
}
rmSync(scratch, { recursive: true, force: true })

const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  '))
if (failures.length > 0) console.log(`\nfailing cases:\n${failures.map((failure) => `- ${failure}`).join('\n')}`)
