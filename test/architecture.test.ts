// The layout's rules, checked on every run: src/ has no import cycles, imports flow one way,
// cli → prool → index → server → rpc → wallet → chain → the shared modules (hex, runtime), no module below rpc/
// imports the wire's errors, and only chain/ethereumjs/ reaches into @ethereumjs internals. docs/architecture.md explains the layers, docs/patches.md the
// reaches.
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

import { describe, expect, test } from 'vitest'

const src = resolve(import.meta.dirname, '../src')
const ethereumjsPackages = resolve(import.meta.dirname, '../node_modules/@ethereumjs')

/** The one folder whose modules may reach into @ethereumjs internals (docs/patches.md#reaches-into-ethereumjs). */
const ADAPTER = 'chain/ethereumjs/'

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
  { name: 'shared', owns: (path) => path === 'hex.ts' || path.startsWith('runtime/') },
]

/** JSON-RPC codes and geth's words: the RPC layer maps the engine's and the wallet's errors to them (docs/architecture.md). */
const WIRE_ERRORS = 'rpc/errors.ts'

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

/** Modules below the RPC layer (the wallet, the engine, the shared modules) that import the wire's errors. */
function wireErrorImports(graph: Graph): string[] {
  const rpc = LAYERS.findIndex((layer) => layer.name === 'rpc')
  return [...graph].filter(([from, targets]) => targets.includes(WIRE_ERRORS) && layerOf(from) > rpc).map(([from]) => from)
}

/**
 * The members @ethereumjs keeps to itself: those its type declarations mark private or protected, and those whose
 * names start with an underscore (its convention for internals it leaves public, like the interpreter's `_evm`).
 */
function hiddenMembers(packages = ethereumjsPackages): Set<string> {
  const hidden = new Set<string>()
  const declarations = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return declarations(path)
      return entry.name.endsWith('.d.ts') ? [path] : []
    })
  for (const name of readdirSync(packages)) {
    for (const file of declarations(join(packages, name, 'dist/esm'))) {
      const members = readFileSync(file, 'utf8').matchAll(
        /^\s+((?:(?:private|protected|public|readonly|static|abstract|override|async|get|set)\s+)*)([A-Za-z_$][\w$]*)\s*[?!]?\s*[:;(<]/gm,
      )
      for (const [, modifiers, member] of members) {
        if (/\b(?:private|protected)\b/.test(modifiers!) || member!.startsWith('_')) hidden.add(member!)
      }
    }
  }
  return hidden
}

/**
 * The source with its comments blanked out, line breaks kept, so that a comment may name an internal. Quotes open a
 * string that a line break ends (a template may span lines), so that `//` inside a string is not taken for a comment.
 */
function withoutComments(source: string): string {
  let out = ''
  let quote: string | undefined
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!
    if (quote !== undefined) {
      out += char
      if (char === '\\') out += source[++i] ?? ''
      else if (char === quote || (char === '\n' && quote !== '`')) quote = undefined
    } else if (char === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++
      out += '\n'
    } else if (char === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2)
      const comment = source.slice(i, end < 0 ? source.length : end + 2)
      out += comment.replace(/[^\n]/g, ' ')
      i += comment.length - 1
    } else {
      if (char === "'" || char === '"' || char === '`') quote = char
      out += char
    }
  }
  return out
}

/** The text of a type from `start` to its end: the first line break, comma, semicolon or closing bracket outside brackets. */
function typeTextAt(source: string, start: number): string {
  let depth = 0
  let end = start
  for (; end < source.length; end++) {
    const char = source[end]!
    if ('{[(<'.includes(char)) depth++
    else if ('}])'.includes(char) || (char === '>' && source[end - 1] !== '=')) {
      if (depth === 0) break
      depth--
    } else if (depth === 0 && (char === ',' || char === ';' || (char === '\n' && !/^\s*[&|]/.test(source.slice(end + 1))))) break
  }
  return source.slice(start, end)
}

/** The member names a type names, following the local type aliases it refers to. */
function membersOfType(source: string, text: string, seen = new Set<string>()): string[] {
  // Parameters are not members: `f(code: Uint8Array): T` names `f`.
  let flat = text
  while (/\([^()]*\)/.test(flat)) flat = flat.replace(/\([^()]*\)/g, '')
  const members = [...flat.matchAll(/([A-Za-z_$][\w$]*)\s*\??\s*:/g)].map((match) => match[1]!)
  for (const [, name] of flat.matchAll(/\b([A-Z][\w$]*)\b/g)) {
    if (seen.has(name!)) continue
    seen.add(name!)
    const alias = new RegExp(`\\btype\\s+${name}\\b[^=]*=`).exec(source)
    if (alias !== null) members.push(...membersOfType(source, typeTextAt(source, alias.index + alias[0].length), seen))
  }
  return members
}

/**
 * How a module reaches into @ethereumjs internals, as `line: what`: an import of a path the packages do not export
 * (or a file found beside their entry point), a cast to a type naming a hidden member (or to any, to read one), an
 * access to a hidden member whose name starts with an underscore, and a swapped prototype member.
 */
function ethereumjsReaches(source: string, hidden: Set<string>): string[] {
  const code = withoutComments(source)
  const lineOf = (index: number) => code.slice(0, index).split('\n').length
  const found: string[] = []
  for (const match of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)['"](@ethereumjs\/[^'"/]+\/[^'"]+)['"]/g)) {
    found.push(`${lineOf(match.index)}: imports ${match[1]}, not an export of the package`)
  }
  for (const match of code.matchAll(/\b(?:import\.meta|require)\.resolve\(\s*(?:['"]@ethereumjs\/|[\w$.]+\s*\))/g)) {
    found.push(`${lineOf(match.index)}: resolves a package to find its files`)
  }
  for (const match of code.matchAll(/\bas\s+unknown\s+as\s+/g)) {
    const start = match.index + match[0].length
    const named = membersOfType(code, typeTextAt(code, start)).filter((member) => hidden.has(member))
    if (named.length > 0) found.push(`${lineOf(match.index)}: casts to a type naming ${[...new Set(named)].join(', ')}`)
  }
  for (const match of code.matchAll(/\bas\s+any\s*\)\s*(?:\?\.|\.)\s*([\w$]+)/g)) {
    if (hidden.has(match[1]!)) found.push(`${lineOf(match.index)}: casts to any to reach ${match[1]}`)
  }
  for (const match of code.matchAll(/(?:\?\.|\.)\s*(_[\w$]+)\b|\[\s*['"](_[\w$]+)['"]\s*\]/g)) {
    const member = match[1] ?? match[2]!
    if (hidden.has(member)) found.push(`${lineOf(match.index)}: reads or writes ${member}`)
  }
  for (const match of code.matchAll(
    /\bprototype\s*(?:\.\s*[\w$]+|\[[^\]]+\])\s*=(?![=>])|\bObject\.(?:assign|defineProperty|defineProperties|setPrototypeOf)\(\s*[\w$.]*\bprototype\b/g,
  )) {
    found.push(`${lineOf(match.index)}: swaps a prototype's member`)
  }
  return found.sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10))
}

describe('src/', () => {
  const graph = srcGraph()

  test('has no import cycles', () => {
    expect(cyclesOf(graph)).toEqual([])
  })

  test('imports flow one way: cli → prool → index → server → rpc → wallet → chain → shared', () => {
    expect(upwardImports(graph)).toEqual([])
  })

  test('no wire error imported below rpc/: the engine and the wallet throw domain errors, which rpc/ maps once', () => {
    expect(wireErrorImports(graph)).toEqual([])
  })

  test('only chain/ethereumjs/ reaches into @ethereumjs internals (docs/patches.md#reaches-into-ethereumjs)', () => {
    const hidden = hiddenMembers()
    const offenders = sourceFiles(src)
      .filter((file) => !relative(src, file).startsWith(ADAPTER))
      .flatMap((file) => ethereumjsReaches(readFileSync(file, 'utf8'), hidden).map((reach) => `${relative(src, file)}:${reach}`))
    expect(offenders).toEqual([])
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

  test('hiddenMembers finds what the packages declare private or protected, and underscored members, and no public one', () => {
    const hidden = hiddenMembers()
    for (const member of [
      'transactionResults',
      'headerData',
      'blockOpts',
      '_minerValue',
      '_opcodeMap',
      '_buildParamsCache',
      '_getValidJumpDestinations',
    ]) {
      expect(hidden, member).toContain(member)
    }
    for (const member of ['gasUsed', 'blobGasUsed', 'minerValue', 'transactionsTrie', 'updateParams', 'runCall'])
      expect(hidden, member).not.toContain(member)
  })

  test('ethereumjsReaches finds non-public paths, casts to hidden members, underscored members and prototype swaps', () => {
    const hidden = new Set(['headerData', 'transactionResults', 'blockOpts', '_minerValue', '_opcodeMap', '_getValidJumpDestinations', '_evm'])
    const source = [
      "import { getOpcodesForHF } from '@ethereumjs/evm/dist/esm/opcodes/index.js'",
      "const { Interpreter } = await import(new URL('./interpreter.js', import.meta.resolve('@ethereumjs/evm')).href)",
      'const header = (builder as unknown as { headerData: HeaderData }).headerData',
      'type Fields = { transactions: unknown[]; transactionResults: unknown[] }',
      'const fields = builder as unknown as Fields',
      'fields._minerValue += 1n',
      "const table = evm['_opcodeMap']",
      'Interpreter.prototype.run = faster',
      'Object.defineProperty(Common.prototype, "param", {})',
      'type Analyser = { analyse(code: Uint8Array): unknown } & { _evm: object }',
      'const analyser = interpreter as unknown as Analyser',
      'const opts = (builder as any).blockOpts',
    ].join('\n')
    expect(ethereumjsReaches(source, hidden)).toEqual([
      '1: imports @ethereumjs/evm/dist/esm/opcodes/index.js, not an export of the package',
      '2: resolves a package to find its files',
      '3: casts to a type naming headerData',
      '5: casts to a type naming transactionResults',
      '6: reads or writes _minerValue',
      '7: reads or writes _opcodeMap',
      "8: swaps a prototype's member",
      "9: swaps a prototype's member",
      '11: casts to a type naming _evm',
      '12: casts to any to reach blockOpts',
    ])
  })

  test("ethereumjsReaches passes public uses, comments and other packages' underscores", () => {
    const hidden = new Set(['headerData', 'transactionResults', '_minerValue', 'common'])
    const source = [
      "import { buildBlock } from '@ethereumjs/vm'",
      "import type { Block } from '@ethereumjs/block'",
      '// BlockBuilder keeps its fees in _minerValue and its header in headerData; builder._minerValue is private.',
      '/* (builder as unknown as { headerData: HeaderData }) */',
      'const value = builder.minerValue + builder.gasUsed',
      'const fields = tx as unknown as Partial<{ gasPrice: bigint; authorizationList: Uint8Array[][] }>',
      'const signer = sign as unknown as Signer["signTransaction"]',
      'const check = (f: { common: Common }) => f',
      "vi.spyOn(MerklePatriciaTrie.prototype, 'put')",
      'Object.setPrototypeOf(revived, RpcError.prototype)',
      'instance._internal.flashchain',
      "const url = 'http://localhost' // a comment after a URL",
    ].join('\n')
    expect(ethereumjsReaches(source, hidden)).toEqual([])
  })

  test('upwardImports finds the chain importing the RPC layer, and allows imports downwards and sideways', () => {
    const graph: Graph = new Map([
      ['chain/chain.ts', ['rpc/format.ts', 'hex.ts', 'chain/types.ts']],
      ['rpc/format.ts', ['chain/types.ts', 'hex.ts']],
      ['cli.ts', ['index.ts', 'runtime/memoryTrim.ts']],
    ])
    expect(upwardImports(graph)).toEqual(['chain/chain.ts → rpc/format.ts'])
  })

  test('wireErrorImports finds the engine, the wallet and the shared modules importing the wire errors, and allows rpc/ and server/', () => {
    const graph: Graph = new Map([
      ['chain/execution/estimate.ts', ['rpc/errors.ts', 'chain/errors.ts']],
      ['wallet/batches.ts', ['rpc/errors.ts']],
      ['runtime/eventLoop.ts', ['rpc/errors.ts']],
      ['rpc/dispatch.ts', ['rpc/errors.ts', 'chain/errors.ts']],
      ['server/http.ts', ['rpc/errors.ts']],
    ])
    expect(wireErrorImports(graph)).toEqual(['chain/execution/estimate.ts', 'wallet/batches.ts', 'runtime/eventLoop.ts'])
  })
})
