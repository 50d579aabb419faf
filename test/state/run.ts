/**
 * Runs the vendored GeneralStateTests (test/conformance/ethereum-tests/) through flashchain's execution path, one
 * worker thread per core, and fails when any case fails.
 *
 *   node test/state/run.ts [--filter SUBSTR] [--slow] [--slowest N]
 *   node --import ./test/support/published.ts test/state/run.ts   # on @ethereumjs as published, without patches/
 */
import { readdirSync, statSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Worker, isMainThread, parentPort } from 'node:worker_threads'

import { assertEthereumjsBuild, expectsPublishedBuild } from '../support/ethereumjsBuild.ts'
import { FIXTURES, SLOW_FILES, createStateTestRunner } from './stateTests.ts'

import type { CaseResult } from './stateTests.ts'

type FromWorker = { kind: 'ready' } | { kind: 'results'; results: CaseResult[] }
type ToWorker = { kind: 'file'; file: string } | { kind: 'stop' }

if (isMainThread) await main()
else await serve()

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { filter: { type: 'string' }, slow: { type: 'boolean' }, slowest: { type: 'string', default: '5' } } })
  const files = (readdirSync(FIXTURES, { recursive: true }) as string[]).filter(
    (file) =>
      file.endsWith('.json') && (values.filter === undefined || file.includes(values.filter)) && (values.slow === true || !SLOW_FILES.includes(file)),
  )
  // The largest files first, so that no thread is left with a long one at the end.
  const sizes = new Map(files.map((file) => [file, statSync(join(FIXTURES, file)).size]))
  files.sort((a, b) => sizes.get(b)! - sizes.get(a)!)
  assertEthereumjsBuild()
  const mode = expectsPublishedBuild() ? 'as published' : 'with patches/'
  const skipped = values.slow === true ? '' : ` (${SLOW_FILES.length} slow ones left out, see --slow)`
  console.log(`GeneralStateTests: ${files.length} files${skipped}, @ethereumjs ${mode}`)

  const started = performance.now()
  const results: CaseResult[] = []
  let next = 0
  const threads = Math.min(availableParallelism(), files.length)
  await Promise.all(
    Array.from({ length: threads }, () => {
      const worker = new Worker(new URL(import.meta.url))
      return new Promise<void>((resolveThread, rejectThread) => {
        const feed = () => {
          const file = files[next++]
          worker.postMessage((file === undefined ? { kind: 'stop' } : { kind: 'file', file }) satisfies ToWorker)
        }
        worker.on('message', (message: FromWorker) => {
          if (message.kind === 'results') results.push(...message.results)
          feed()
        })
        worker.on('error', rejectThread)
        worker.on('exit', (code) => (code === 0 ? resolveThread() : rejectThread(new Error(`a state test thread exited with ${code}`))))
      })
    }),
  )

  const failed = results.filter((result) => !result.pass)
  for (const result of failed) console.log(`FAIL ${result.name}: ${result.detail}`)
  const slowest = results.toSorted((a, b) => b.ms - a.ms).slice(0, Number(values.slowest))
  for (const result of slowest) console.log(`slow ${result.ms.toFixed(0).padStart(6)} ms  ${result.name}`)
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  console.log(`${results.length - failed.length}/${results.length} cases passed in ${seconds} s on ${threads} threads`)
  if (results.length === 0 || failed.length > 0) process.exitCode = 1
}

async function serve(): Promise<void> {
  const port = parentPort!
  assertEthereumjsBuild()
  const runner = await createStateTestRunner()
  port.on('message', async (message: ToWorker) => {
    if (message.kind === 'stop') return port.close()
    try {
      port.postMessage({ kind: 'results', results: await runner.runFile(join(FIXTURES, message.file), message.file) } satisfies FromWorker)
    } catch (error) {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error)
      port.postMessage({ kind: 'results', results: [{ name: message.file, pass: false, detail, ms: 0 }] } satisfies FromWorker)
    }
  })
  port.postMessage({ kind: 'ready' } satisfies FromWorker)
}
