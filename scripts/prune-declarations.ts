// Part of `npm run build`, after tsc: keeps in dist/ only the declarations a user of the package can reach. tsc writes
// one .d.ts beside every module, but a user's compiler only ever opens those the entry points of package.json's
// `exports` lead to; the rest were two thirds of the files npm packs and lists. The TypeScript compiler itself
// follows the imports, so nothing reachable is missed, and the declarations kept must then compile on their own.
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import ts from 'typescript'

const root = fileURLToPath(new URL('..', import.meta.url))
const dist = join(root, 'dist')
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { types?: string } | string> }
const entries = Object.values(manifest.exports).flatMap((target) =>
  typeof target === 'object' && target.types !== undefined ? [resolve(root, target.types)] : [],
)
const options: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2024,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2024.d.ts'],
  types: ['node'],
  strict: true,
  noEmit: true,
}

function declarations(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return declarations(path)
    return path.endsWith('.d.ts') ? [path] : []
  })
}

const program = ts.createProgram(entries, options)
const reached = new Set(program.getSourceFiles().map((file) => resolve(file.fileName)))
const unreached = declarations(dist).filter((path) => !reached.has(path))
for (const path of unreached) rmSync(path)

// Only the package's own declarations: the ones of its dependencies are theirs (and users skip them with skipLibCheck).
const check = ts.createProgram(entries, options, undefined, program)
const diagnostics = check
  .getSourceFiles()
  .filter((file) => resolve(file.fileName).startsWith(`${dist}/`))
  .flatMap((file) => [...check.getSyntacticDiagnostics(file), ...check.getSemanticDiagnostics(file)])
if (diagnostics.length > 0) {
  const host = { getCanonicalFileName: (name: string) => name, getCurrentDirectory: () => root, getNewLine: () => '\n' }
  throw new Error(`the declarations kept in dist/ do not compile on their own:\n${ts.formatDiagnostics(diagnostics, host)}`)
}
process.stdout.write(`dist/: ${declarations(dist).length} declarations kept, ${unreached.length} removed\n`)
