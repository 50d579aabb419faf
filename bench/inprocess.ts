// createFlashchain() in this process, as a test suite starts it (a vitest globalSetup, a prool pool): the import,
// the time to start one and to close it, and what each running flashchain costs in memory. Every flashchain is in
// memory, on manual mining, on 127.0.0.1 with a port the system picks. Run: `node --expose-gc bench/inprocess.ts`;
// BENCH_FLASHCHAIN (an installed package's flashchain command, as for bench/run.ts) measures that package's dist/
// instead of src/. BENCH_STARTS (default 20) starts one after another, BENCH_HELD (default 10) held at once,
// BENCH_WORKERS the `workers` option (default: createFlashchain's).
import { realpathSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

import type { createFlashchain as CreateFlashchain } from '../src/index.ts'

const STARTS = Number(process.env.BENCH_STARTS ?? 20)
const HELD = Number(process.env.BENCH_HELD ?? 10)
const installed = process.env.BENCH_FLASHCHAIN
const entry =
  installed === undefined ? new URL('../src/index.ts', import.meta.url) : new URL('../dist/index.js', pathToFileURL(realpathSync(installed)))

const gc = globalThis.gc
if (gc === undefined) throw new Error('run with node --expose-gc, so that memory is measured after a full collection')
const settle = () => {
  gc()
  gc()
  return process.memoryUsage()
}
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

const before = settle()
let t = performance.now()
const { createFlashchain } = (await import(entry.href)) as { createFlashchain: typeof CreateFlashchain }
const importMs = performance.now() - t
const options = {
  port: 0,
  mining: 'manual' as const,
  workers: process.env.BENCH_WORKERS === undefined ? undefined : Number(process.env.BENCH_WORKERS),
}

t = performance.now()
const first = await createFlashchain(options)
const firstMs = performance.now() - t
await first.request({ method: 'eth_blockNumber' })
await first.close()

const startMs: number[] = []
const closeMs: number[] = []
for (let i = 0; i < STARTS; i++) {
  t = performance.now()
  const flashchain = await createFlashchain(options)
  startMs.push(performance.now() - t)
  await flashchain.request({ method: 'eth_blockNumber' })
  t = performance.now()
  await flashchain.close()
  closeMs.push(performance.now() - t)
}

const loaded = settle()
const held = []
for (let i = 0; i < HELD; i++) held.push(await createFlashchain(options))
const running = settle()
await Promise.all(held.map((flashchain) => flashchain.close()))
const after = settle()

console.log(`createFlashchain() in process (${installed === undefined ? 'src/' : 'installed dist/'}, node ${process.version})`)
console.log(`  import: ${importMs.toFixed(0)} ms; RSS ${mb(before.rss)} → ${mb(loaded.rss)} MB with the modules loaded`)
console.log(
  `  first start: ${firstMs.toFixed(0)} ms; then median of ${STARTS}: start ${median(startMs).toFixed(0)} ms (max ${Math.max(...startMs).toFixed(0)}), close ${median(closeMs).toFixed(0)} ms`,
)
console.log(
  `  ${HELD} running at once: RSS +${mb((running.rss - loaded.rss) / HELD)} MB and heap +${mb((running.heapUsed - loaded.heapUsed) / HELD)} MB each; ` +
    `after closing them: RSS ${mb(after.rss)} MB, heap ${mb(after.heapUsed)} MB (${mb(loaded.heapUsed)} before)`,
)
