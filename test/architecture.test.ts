// The layout's rules, checked on every run: src/ has no import cycles, and imports flow one way,
// cli → prool → index → server → rpc → wallet → chain → the shared modules (errors, hex, runtime). docs/architecture.md
// explains the layers.
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

import { describe, expect, test } from 'vitest'

const src = resolve(import.meta.dirname, '../src')

/** Layers from the top; a module may import its own layer and those below it. */
const LAYERS: { name: string; owns: (path: string) => boolean }[] = [
  { name: 'cli', owns: (path) => path === 'cli.ts' },
  { name: 'prool', owns: (path) => path === 'prool.ts' || path === 'prool.test.ts' },
  { name: 'playwright', owns: (path) => path === 'playwright.ts' },
  { name: 'chains', owns: (path) => path === 'chains.ts' || path === 'chains.test.ts' },
  { name: 'index', owns: (path) => path === 'index.ts' },
  { name: 'server', owns: (path) => path.startsWith('server/') },
  { name: 'rpc', owns: (path) => path.startsWith('rpc/') },
  { name: 'wallet', owns: (path) => path.startsWith('wallet/') },
  { name: 'chain', owns: (path) => path.startsWith('chain/') },
  { name: 'shared', owns: (path) => path === 'errors.ts' || path === 'hex.ts' || path.startsWith('runtime/') },
]

type Graph = Map<string, string[]>

/** Relative import specifiers of a TypeScript source: static imports and re-exports, and dynamic imports. */
function importsOf(source: string): string[] {
  const found: string[] = []
  for (const match of source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g)) found.push(match[1]!)
  for (const match of source.matchAll(/(?:^|\n)\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/g)) found.push(match[1]!)
  for (const match of source.matchAll(/\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) found.push(match[1]!)
  for (const match of source.matchAll(/new URL\(\s*['"](\.{1,2}\/[^'"]+\.ts)['"]\s*,\s*import\.meta\.url\s*\)/g)) found.push(match[1]!)
  return found
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** src/'s modules and what each imports within src/, as paths relative to src/. */
function srcGraph(): Graph {
  const graph: Graph = new Map()
  const files = sourceFiles(src)
  const modules = new Set(files)
  for (const file of files) {
    // Only modules that exist: a test may carry a script for another process in a string, importing from elsewhere.
    const targets = importsOf(readFileSync(file, 'utf8'))
      .map((specifier) => resolve(dirname(file), specifier))
      .filter((target) => modules.has(target))
      .map((target) => relative(src, target))
    graph.set(relative(src, file), targets)
  }
  return graph
}

/** Every cycle, as the modules on it, found through the graph's strongly connected components (Tarjan). */
function cyclesOf(graph: Graph): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  let next = 0
  const visit = (node: string) => {
    index.set(node, next)
    low.set(node, next++)
    stack.push(node)
    onStack.add(node)
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target)
        low.set(node, Math.min(low.get(node)!, low.get(target)!))
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!))
      }
    }
    if (low.get(node) !== index.get(node)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort())
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return cycles
}

function layerOf(path: string): number {
  const layer = LAYERS.findIndex((candidate) => candidate.owns(path))
  if (layer < 0) throw new Error(`${path} belongs to no layer; add its folder to LAYERS`)
  return layer
}

/** Imports that go up the layers, as `from → to`. */
function upwardImports(graph: Graph): string[] {
  const found: string[] = []
  for (const [from, targets] of graph) {
    for (const to of targets) if (layerOf(to) < layerOf(from)) found.push(`${from} → ${to}`)
  }
  return found
}

describe('src/', () => {
  const graph = srcGraph()

  test('has no import cycles', () => {
    expect(cyclesOf(graph)).toEqual([])
  })

  test('imports flow one way: cli → prool → index → server → rpc → wallet → chain → shared', () => {
    expect(upwardImports(graph)).toEqual([])
  })

  test('only tests import vitest', () => {
    const offenders = sourceFiles(src)
      .filter((file) => !file.endsWith('.test.ts') && /from ['"]vitest['"]/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(src, file))
    expect(offenders).toEqual([])
  })
})

describe('the checks themselves', () => {
  test('importsOf finds static, type-only, side-effect, dynamic and worker imports, and skips packages', () => {
    const source = [
      "import { a } from './a.ts'",
      "import type { B } from '../b.ts'",
      "export { c } from './c.ts'",
      "import './d.ts'",
      "const e = await import('./e.ts')",
      "new Worker(new URL('./f.ts', import.meta.url))",
      "import { z } from 'zod'",
    ].join('\n')
    expect(importsOf(source)).toEqual(['./a.ts', '../b.ts', './c.ts', './d.ts', './e.ts', './f.ts'])
  })

  test('cyclesOf finds a cycle through three modules and a module importing itself, and nothing in a tree', () => {
    const graph: Graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ])
    expect(cyclesOf(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']])
    expect(
      cyclesOf(
        new Map([
          ['a.ts', ['b.ts', 'c.ts']],
          ['b.ts', ['c.ts']],
          ['c.ts', []],
        ]),
      ),
    ).toEqual([])
  })

  test('upwardImports finds the chain importing the RPC layer, and allows imports downwards and sideways', () => {
    const graph: Graph = new Map([
      ['chain/chain.ts', ['rpc/format.ts', 'errors.ts', 'chain/types.ts']],
      ['rpc/format.ts', ['chain/types.ts', 'hex.ts']],
      ['cli.ts', ['index.ts', 'runtime/memoryTrim.ts']],
    ])
    expect(upwardImports(graph)).toEqual(['chain/chain.ts → rpc/format.ts'])
  })
})
