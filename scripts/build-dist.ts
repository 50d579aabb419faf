// Part of `npm run build`: the package's JavaScript and declarations in dist/. The JavaScript is bundled by esbuild,
// one file per entry point of package.json (and the execution worker, which a Worker loads by path) and a few chunks
// they share, with every dependency left to node_modules: a user's import opens a dozen of flashchain's files rather
// than three hundred, and `npm pack` lists as few. The declarations stay tsc's, one per module a user's compiler can
// reach (prune-declarations.ts).
import { execFileSync } from 'node:child_process'
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { build } from 'esbuild'

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
  entryPoints: ['index', 'cli', 'chains', 'prool', 'playwright', 'chain/execution/worker'].map((entry) => join(root, 'src', `${entry}.ts`)),
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
const files = readdirSync(dist).filter((name) => name.endsWith('.js'))
process.stdout.write(`dist/: ${files.length} JavaScript files\n`)
