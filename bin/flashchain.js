#!/usr/bin/env node
// Starts the command line. Installed from the package, it runs the compiled JavaScript (dist/) on Node 22.13 or
// newer, the first Node whose node:sqlite needs no flag. In the repository, where src/ is present, it runs the
// TypeScript sources on Node 24, which strips types itself; an older Node there hands over to the runtime pinned by
// the dev dependency `node`, so `npm start` works wherever npm does.
// Plain JavaScript that parses on any Node still in use, so that an old one gets the line naming the version needed.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import module, { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'

const MINIMUM = [22, 13]
const source = fileURLToPath(new URL('../src/cli.ts', import.meta.url))
const compiled = fileURLToPath(new URL('../dist/cli.js', import.meta.url))
const [major, minor] = process.versions.node.split('.').map(Number)
const inRepository = existsSync(source)
const cli = inRepository ? source : compiled

// V8 lets a busy server's young generation grow to 32 MB per semi-space, about 100 MB per thread. 16 MB keeps the
// resident set after the benchmark's reads near what 4 MB does (230 against 225 MB; the same at rest, once the memory
// trim has run), and 4 MB scavenged so often that requests carrying EVM runs cost 6–15 % more CPU (eth_estimateGas
// of an ERC20 transfer: 107 against 120 µs per request, in interleaved runs). V8 also lets the old
// generation grow to as much as four times what survived the last full collection before it collects again, and
// did so while the state manager promoted every run's keys (261 MB after the benchmark's reads, 195 MB with
// --heap-growing-percent=25). Since that leak into the old generation is fixed, V8's own factor stays near 1.8
// here and the flag changes neither figure; it stays as the bound on workloads that promote more, for 8 % more
// full-collection time (297 ms against 275 over 40 s of load). Two GC helper threads instead of Node's four: each
// kept a 5–8 MB malloc arena, and the other two bought nothing measurable.
// --expose-gc lets the server give memory back once a load has passed (src/runtime/memoryTrim.ts). All are settable only
// at start, and apply to the execution workers too, whose young generation src/chain/execution/workerPool.ts bounds on its own.
const nodeFlags = ['--max-semi-space-size=16', '--heap-growing-percent=25', '--v8-pool-size=2', '--expose-gc']
// Node 22 marks node:sqlite experimental and says so at every start; the store is flashchain's own concern.
if (major < 24) nodeFlags.push('--disable-warning=ExperimentalWarning')
const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]
const missingFlags = nodeFlags.filter((flag) => !given.some((option) => option.split('=')[0] === flag.split('=')[0]))

const runsHere = inRepository ? major >= 24 : major > MINIMUM[0] || (major === MINIMUM[0] && minor >= MINIMUM[1])

if (runsHere && missingFlags.length === 0) {
  // Compiled code (and the TypeScript stripped to run it) is kept on disk between starts: start-up takes about
  // 550 ms instead of 850 (measured on 2 cores). Worker threads do not inherit the call, only the environment: without
  // it each execution worker stripped its TypeScript again, loading the stripper's WebAssembly (about 7 MB more).
  const { directory } = module.enableCompileCache()
  if (directory !== undefined) process.env.NODE_COMPILE_CACHE = directory
  process.argv[1] = cli
  const { main } = await import(pathToFileURL(cli).href)
  await main()
} else if (runsHere && typeof process.execve === 'function') {
  // The same process (same PID), started again with the flags.
  process.execve(process.execPath, [process.execPath, ...missingFlags, ...process.execArgv, ...process.argv.slice(1)], process.env)
} else if (runsHere) {
  // Node before 22.15 has no execve: a child takes the flags.
  handOver(process.execPath, missingFlags)
} else if (inRepository) {
  let runtime
  try {
    runtime = createRequire(import.meta.url).resolve('node/bin/node')
  } catch {
    process.stderr.write(`flashchain needs Node.js 24 or newer to run from its sources (found ${process.version}); run npm install first\n`)
    process.exit(1)
  }
  handOver(runtime, nodeFlags)
} else {
  process.stderr.write(`flashchain needs Node.js ${MINIMUM.join('.')} or newer (found ${process.version})\n`)
  process.exit(1)
}

/** Runs this script again as a child of `runtime` with `flags`, passing signals on and its exit status back. */
function handOver(runtime, flags) {
  const child = spawn(runtime, [...flags, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' })
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)))
}
