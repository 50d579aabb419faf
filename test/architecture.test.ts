// The layout's rules, checked on every run: src/ has no import cycles, imports flow one way,
// cli → prool → index → server → rpc → wallet → chain → the shared modules (hex, runtime), no module below rpc/
// imports the wire's errors, only chain/ethereumjs/ reaches into @ethereumjs internals, the layers above the engine
// reach it through the chain's services, which createChain composes and docs/architecture.md names, and no module is
// over 400 lines. docs/architecture.md explains the layers and the services, docs/patches.md the reaches.
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

import { describe, expect, test } from 'vitest'

import { createChain } from '../src/chain/chain.ts'

const src = resolve(import.meta.dirname, '../src')
const ethereumjsPackages = resolve(import.meta.dirname, '../node_modules/@ethereumjs')

/** The one folder whose modules may reach into @ethereumjs internals (docs/patches.md#reaches-into-ethereumjs). */
const ADAPTER = 'chain/ethereumjs/'

/** The chain's services, one module each, and the composition root that creates them. */
const SERVICES = 'chain/services/'
const COMPOSITION_ROOT = 'chain/chain.ts'

/** What the library entry may build of the engine: the chain, and the database it shares with the wallet. */
const ENTRY_FACTORIES = new Set(['node.ts: createChain from chain/chain.ts', 'node.ts: openDatabase from chain/storage/database.ts'])

/** The longest a module of src/ may be (the transport's state machine included: docs/http.md). */
const MAX_MODULE_LINES = 400

/** A factory of an engine part, by its name. */
const FACTORY = /^(?:create|open|load)[A-Z]/

/** Layers from the top; a module may import its own layer and those below it. */
const LAYERS: { name: string; owns: (path: string) => boolean }[] = [
  { name: 'cli', owns: (path) => path === 'cli.ts' || path.startsWith('cli/') },
  { name: 'prool', owns: (path) => path === 'prool.ts' || path === 'prool.test.ts' },
  { name: 'playwright', owns: (path) => path === 'playwright.ts' },
  { name: 'chains', owns: (path) => path === 'chains.ts' || path === 'chains.test.ts' },
  { name: 'follow', owns: (path) => path.startsWith('follow/') },
  { name: 'index', owns: (path) => ['index.ts', 'node.ts', 'options.ts'].includes(path) },
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

/** Named imports of a source: each specifier, with the names it imports as values and those it imports as types. */
function namedImportsOf(source: string): { specifier: string; values: string[]; types: string[] }[] {
  const found: { specifier: string; values: string[]; types: string[] }[] = []
  for (const match of source.matchAll(/(?:^|\n)\s*import\s+(type\s+)?\{([^}]*)\}\s*from\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const values: string[] = []
    const types: string[] = []
    for (const entry of match[2]!
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '')) {
      const inlineType = /^type\s+/.test(entry)
      const name = entry.replace(/^type\s+/, '').split(/\s+as\s+/)[0]!
      if (match[1] !== undefined || inlineType) types.push(name)
      else values.push(name)
    }
    found.push({ specifier: match[3]!, values, types })
  }
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

  test(`no module is longer than ${MAX_MODULE_LINES} lines, tests and generated data aside: each reads whole, and a longer one is two concerns`, () => {
    const offenders = sourceFiles(src)
      // A `.data.ts` module holds data a script in scripts/ generated (the OP Stack's predeploys), no logic.
      .filter((file) => !file.endsWith('.test.ts') && !file.endsWith('.data.ts'))
      .map((file) => ({ file: relative(src, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_MODULE_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`)
    expect(offenders).toEqual([])
  })

  test('only tests import vitest', () => {
    const offenders = sourceFiles(src)
      .filter((file) => !file.endsWith('.test.ts') && /from ['"]vitest['"]/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(src, file))
    expect(offenders).toEqual([])
  })
})

/** The named imports of every module of src/ but the tests, with their targets as paths relative to src/. */
function srcNamedImports(): { from: string; to: string; values: string[]; types: string[] }[] {
  return sourceFiles(src)
    .filter((file) => !file.endsWith('.test.ts'))
    .flatMap((file) =>
      namedImportsOf(readFileSync(file, 'utf8')).map(({ specifier, values, types }) => ({
        from: relative(src, file),
        to: relative(src, resolve(dirname(file), specifier)),
        values,
        types,
      })),
    )
}

/** Imports of one service module by another, as `from → to`: a service is handed what it needs, never another service. */
function crossServiceImports(graph: Graph): string[] {
  const found: string[] = []
  for (const [from, targets] of graph) {
    if (!from.startsWith(SERVICES) || from.endsWith('.test.ts')) continue
    for (const to of targets) if (to.startsWith(SERVICES) && to !== from) found.push(`${from} → ${to}`)
  }
  return found
}

/** Values imported from a service module outside the composition root, as `from: name`: elsewhere, services are types. */
function serviceValuesOutsideRoot(imports: ReturnType<typeof srcNamedImports>): string[] {
  return imports
    .filter(({ from, to, values }) => to.startsWith(SERVICES) && from !== COMPOSITION_ROOT && !from.startsWith(SERVICES) && values.length > 0)
    .map(({ from, values }) => `${from}: ${values.join(', ')}`)
}

/** Engine factories imported outside chain/, as `from: name from to`, but the entry's own (ENTRY_FACTORIES). */
function engineFactoriesAbove(imports: ReturnType<typeof srcNamedImports>): string[] {
  return imports
    .filter(({ from, to }) => to.startsWith('chain/') && !from.startsWith('chain/'))
    .flatMap(({ from, to, values }) => values.filter((name) => FACTORY.test(name)).map((name) => `${from}: ${name} from ${to}`))
    .filter((found) => !ENTRY_FACTORIES.has(found))
}

/**
 * The engine parts the services are handed: the types their `…Parts` name that come from a module of chain/ with a
 * factory (create…, open…, load…), such as Producer, Pool or StateHistory.
 */
function engineParts(): Set<string> {
  const parts = new Set<string>()
  for (const file of sourceFiles(join(src, SERVICES)).filter((path) => !path.endsWith('.test.ts'))) {
    const source = readFileSync(file, 'utf8')
    const declared = /export type \w+Parts =/.exec(source)
    if (declared === null) continue
    const text = typeTextAt(source, declared.index + declared[0].length)
    const named = new Set([...text.matchAll(/\b([A-Z]\w*)\b/g)].map((match) => match[1]!))
    for (const { specifier, types } of namedImportsOf(source)) {
      const module = resolve(dirname(file), specifier)
      const factories = [...readFileSync(module, 'utf8').matchAll(/export (?:async )?function (\w+)/g)].some((match) => FACTORY.test(match[1]!))
      if (factories) for (const name of types) if (named.has(name)) parts.add(name)
    }
  }
  return parts
}

/** Types of engine parts imported by rpc/, as `from: name`: handlers type the engine through the services. */
function enginePartsInRpc(imports: ReturnType<typeof srcNamedImports>, parts: Set<string>): string[] {
  return imports
    .filter(({ from, to }) => from.startsWith('rpc/') && to.startsWith('chain/'))
    .flatMap(({ from, values, types }) => [...values, ...types].filter((name) => parts.has(name)).map((name) => `${from}: ${name}`))
}

/** The services docs/architecture.md names in its table of them: the first column's code spans. */
function documentedServices(markdown: string): string[] {
  const section = markdown.split(/^### The services$/m)[1]?.split(/^#{2,3} /m)[0] ?? ''
  return [...section.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1]!)
}

describe('the services', () => {
  const graph = srcGraph()
  const imports = srcNamedImports()

  test('a service imports no other service: it is handed the parts it needs', () => {
    expect(crossServiceImports(graph)).toEqual([])
  })

  test('only the composition root (chain/chain.ts) creates services; elsewhere they are types', () => {
    expect(serviceValuesOutsideRoot(imports)).toEqual([])
  })

  test('above chain/, nothing builds an engine part: the library entry creates the chain and its database, no more', () => {
    expect(engineFactoriesAbove(imports)).toEqual([])
  })

  test('rpc/ types the engine through the services, never through the parts they wrap', () => {
    const parts = engineParts()
    for (const part of ['Producer', 'Pool', 'StateHistory', 'SealedBlocks', 'ChainStore', 'Calls']) expect(parts, part).toContain(part)
    expect(enginePartsInRpc(imports, parts)).toEqual([])
  })

  test('createChain returns the services docs/architecture.md names, one module of chain/services/ each, and close', async () => {
    const chain = await createChain({ mining: 'manual', workers: 0 })
    try {
      const returned = Object.keys(chain).filter((key) => key !== 'close')
      const modules = readdirSync(join(src, SERVICES))
        .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
        .map((name) => name.replace(/\.ts$/, ''))
      const documented = documentedServices(readFileSync(resolve(import.meta.dirname, '../docs/architecture.md'), 'utf8'))
      expect(returned.sort()).toEqual(modules.sort())
      expect(documented.sort()).toEqual(modules.sort())
      expect(Object.keys(chain)).toContain('close')
    } finally {
      await chain.close()
    }
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

  test('namedImportsOf tells values from types, inline or whole, and takes the name before `as`', () => {
    const source = ["import { a, type B, c as d } from './a.ts'", "import type { E } from '../e.ts'", "import { z } from 'zod'"].join('\n')
    expect(namedImportsOf(source)).toEqual([
      { specifier: './a.ts', values: ['a', 'c'], types: ['B'] },
      { specifier: '../e.ts', values: [], types: ['E'] },
    ])
  })

  test('crossServiceImports finds a service importing another, and allows the parts', () => {
    const graph: Graph = new Map([
      ['chain/services/pool.ts', ['chain/services/blocks.ts', 'chain/production/txpool.ts']],
      ['chain/services/blocks.ts', ['chain/blocks/sealedBlocks.ts']],
      ['chain/chain.ts', ['chain/services/pool.ts', 'chain/services/blocks.ts']],
    ])
    expect(crossServiceImports(graph)).toEqual(['chain/services/pool.ts → chain/services/blocks.ts'])
  })

  test('serviceValuesOutsideRoot and engineFactoriesAbove find a factory used where it does not belong', () => {
    const imports = [
      { from: 'rpc/eth/getCode.ts', to: 'chain/services/state.ts', values: ['createStateService'], types: [] },
      { from: 'rpc/method.ts', to: 'chain/services/state.ts', values: [], types: ['StateService'] },
      { from: 'chain/chain.ts', to: 'chain/services/state.ts', values: ['createStateService'], types: [] },
      { from: 'rpc/eth/sendRawTransaction.ts', to: 'chain/production/txpool.ts', values: ['createPool'], types: [] },
      { from: 'rpc/anvil/setCode.ts', to: 'chain/state/edits.ts', values: ['setCode'], types: [] },
      { from: 'node.ts', to: 'chain/chain.ts', values: ['createChain'], types: [] },
    ]
    expect(serviceValuesOutsideRoot(imports)).toEqual(['rpc/eth/getCode.ts: createStateService'])
    expect(engineFactoriesAbove(imports)).toEqual([
      'rpc/eth/getCode.ts: createStateService from chain/services/state.ts',
      'rpc/eth/sendRawTransaction.ts: createPool from chain/production/txpool.ts',
    ])
  })

  test('enginePartsInRpc finds a handler typing a part, and allows plain data', () => {
    const imports = [
      { from: 'rpc/eth/getProof.ts', to: 'chain/production/producer.ts', values: [], types: ['Producer'] },
      { from: 'rpc/format.ts', to: 'chain/types.ts', values: [], types: ['Block'] },
      { from: 'wallet/core.ts', to: 'chain/production/txpool.ts', values: [], types: ['Pool'] },
    ]
    expect(enginePartsInRpc(imports, new Set(['Producer', 'Pool']))).toEqual(['rpc/eth/getProof.ts: Producer'])
  })

  test('documentedServices reads the first column of the services table alone', () => {
    const markdown = [
      '### The services',
      '',
      '| service | what |',
      '|---|---|',
      '| `blocks` | the blocks |',
      '| `state` | state |',
      '',
      '## Next',
      '| `other` | x |',
    ].join('\n')
    expect(documentedServices(markdown)).toEqual(['blocks', 'state'])
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
