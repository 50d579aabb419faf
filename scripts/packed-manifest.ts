// The package.json that goes into the tarball has no `scripts`. Every script of the repository runs a file the package
// does not ship (scripts/, test/, bench/), and npm 11 names a dependency's `prepare` among the install scripts a
// project has to approve (allowScripts), although it never runs it from a tarball or the registry. Without `prepare`
// in the file, npm pack, which reads package.json again after prepack, also no longer runs it, so the console page
// is built once (by npm run build in prepack), not twice.
//   node scripts/packed-manifest.ts strip     the last step of prepack: keeps package.json aside, writes it without `scripts`
//   node scripts/packed-manifest.ts restore   postpack: puts the kept package.json back, byte for byte
// npm runs postpack from the manifest it read before prepack, so the scripts removed here still run. If a pack stops
// between the two (the tarball could not be written), package.json stays without scripts and the next npm command
// says so: `node scripts/packed-manifest.ts restore` brings it back.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const manifest = join(root, 'package.json')
const kept = join(root, 'node_modules', '.cache', 'flashchain-pack', 'package.json')

const [command] = process.argv.slice(2)
if (command === 'strip') {
  const { scripts: _, ...packed } = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>
  mkdirSync(join(kept, '..'), { recursive: true })
  copyFileSync(manifest, kept)
  writeFileSync(manifest, `${JSON.stringify(packed, null, 2)}\n`)
} else if (command === 'restore') {
  if (!existsSync(kept)) throw new Error(`no package.json kept at ${kept}: nothing to restore`)
  copyFileSync(kept, manifest)
  rmSync(kept)
} else {
  process.stderr.write('usage: node scripts/packed-manifest.ts strip|restore\n')
  process.exit(1)
}
