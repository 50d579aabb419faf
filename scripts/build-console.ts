// `npm run build:console`: bundles the console page (console/) into console/dist/, which the node serves at GET /.
// One script and one stylesheet, minified, with everything they import inside them: the page loads nothing from
// outside the node. Also the wallet's provider for other pages (console/src/provider/), served at GET /provider.js:
// a classic script (other pages load it with a plain script tag or an init script), with no dependency.
// Runs at `npm ci` (prepare) and in `npm run build`.
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

import { build } from 'esbuild'

const root = fileURLToPath(new URL('../console/', import.meta.url))
const dist = `${root}dist/`
const nodeSources = fileURLToPath(new URL('../src/', import.meta.url))
/** The one module of the node's sources the page takes values from: the approval policy's words, importing nothing. */
const sharedWithNode = new Set([fileURLToPath(new URL('../src/wallet/approvalKeys.ts', import.meta.url))])

rmSync(dist, { recursive: true, force: true })
mkdirSync(`${dist}assets`, { recursive: true })
const page = await build({
  entryPoints: [
    { in: `${root}src/main.tsx`, out: 'app' },
    { in: `${root}src/style.css`, out: 'app' },
  ],
  outdir: `${dist}assets`,
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
})
// The page types its requests with the node's method definitions, imported as types, which the build erases: any
// other module of src/ in the bundle is server code that reached the page by mistake.
const serverCode = Object.keys(page.metafile.inputs)
  .map((input) => resolve(input))
  .filter((input) => input.startsWith(nodeSources) && !sharedWithNode.has(input))
if (serverCode.length > 0) throw new Error(`the console page bundles server code: ${serverCode.join(', ')}`)
await build({
  entryPoints: [`${root}src/provider/main.ts`],
  outfile: `${dist}provider.js`,
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2022',
  legalComments: 'none',
  logLevel: 'warning',
})
copyFileSync(`${root}index.html`, `${dist}index.html`)

for (const file of ['assets/app.js', 'assets/app.css', 'provider.js']) {
  const bytes = readFileSync(`${dist}${file}`)
  const kb = (size: number) => `${(size / 1024).toFixed(1)} KB`
  process.stdout.write(`console/dist/${file}: ${kb(bytes.length)}, ${kb(gzipSync(bytes).length)} gzip\n`)
}
