/**
 * Runs the execution-apis rpc-compat fixtures (the `.io` files hive's rpc-compat simulator uses) against flashchain.
 *
 *   node scripts/conformance.ts [--fixtures DIR] [--url URL] [--filter SUBSTR]
 *
 * Without --url it starts the node on the fixtures' genesis.json and chain.rlp and stops it afterwards. Files run in
 * lexical path order against one node, each request sent as written; responses are compared with the rules in
 * test/conformance/execution-apis/README.md. Prints one line per failing file, `method: passed/total` per method
 * folder and finally `N passed, M failed`. Exit code 1 if anything failed or the node did not start.
 */
import { spawn } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'
import { parseArgs } from 'node:util'

import type { ChildProcess } from 'node:child_process'

const repoRoot = resolve(import.meta.dirname, '..')
export const DEFAULT_FIXTURES = join(repoRoot, 'test/conformance/execution-apis/tests')
export const DEFAULT_CLI = join(repoRoot, 'src/cli.ts')

// ---------------------------------------------------------------------------------------------------------------
// The .io format

export type IoExchange = {
  /** The request line's JSON text, exactly as written after `>>`. */
  request: string
  /** The expected response's JSON text, as written after `<<`. */
  response: string
}

export type IoFile = {
  /** The `//` lines before the first exchange, without the `//` and surrounding blanks. */
  description: string[]
  /** A description line starts with `speconly:`: only the shape of a successful result is checked. */
  speconly: boolean
  exchanges: IoExchange[]
}

/** Parses one `.io` file. Throws an Error naming the line on malformed input. */
export function parseIoFile(text: string): IoFile {
  const description: string[] = []
  const exchanges: IoExchange[] = []
  let speconly = false
  let pending: { request: string; line: number } | undefined
  const lines = text.split(/\r?\n/)
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index].trim()
    const at = `line ${index + 1}`
    if (line === '') continue
    if (line.startsWith('//')) {
      if (exchanges.length > 0 || pending !== undefined) continue // comments after the first request are ignored
      const comment = line.slice(2).trim()
      description.push(comment)
      if (comment.startsWith('speconly:')) speconly = true
      continue
    }
    if (line.startsWith('>>') || line.startsWith('<<')) {
      const data = line.slice(2).trim()
      try {
        JSON.parse(data)
      } catch (error) {
        throw new Error(`${at}: invalid JSON: ${(error as Error).message}`)
      }
      if (line.startsWith('>>')) {
        if (pending !== undefined) throw new Error(`${at}: a request follows the request on line ${pending.line} without a response`)
        pending = { request: data, line: index + 1 }
      } else {
        if (pending === undefined) throw new Error(`${at}: a response without a request before it`)
        exchanges.push({ request: pending.request, response: data })
        pending = undefined
      }
      continue
    }
    throw new Error(`${at}: expected "//", ">>" or "<<", got ${JSON.stringify(truncate(line, 60))}`)
  }
  if (pending !== undefined) throw new Error(`line ${pending.line}: the request has no response`)
  if (exchanges.length === 0) throw new Error('no exchanges in the file')
  return { description, speconly, exchanges }
}

// ---------------------------------------------------------------------------------------------------------------
// Comparison

export type CompareResult = { ok: true } | { ok: false; path: string; expected: unknown; actual: unknown }

type Kind = 'null' | 'array' | 'object' | 'string' | 'number' | 'boolean' | 'missing' | 'other'

function kindOf(value: unknown): Kind {
  if (value === undefined) return 'missing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  switch (typeof value) {
    case 'object':
      return 'object'
    case 'string':
      return 'string'
    case 'number':
      return 'number'
    case 'boolean':
      return 'boolean'
    default:
      return 'other'
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return kindOf(value) === 'object'
}

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`
}

/** The execution-apis schema's `uint` pattern. */
const HEX_QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/
/** Hex data: `0x` and whole bytes, lowercase (the schema's `bytes`, with an even length). */
const HEX_DATA = /^0x([0-9a-f]{2})*$/

/**
 * Compares an actual JSON-RPC response with the expected one, by the rules of hive's rpc-compat simulator:
 * 1. where both hold an `error` object at the same place, its `message` is left out on both sides;
 * 2. `speconly` and the actual response has no `error`: only the shape is checked (see {@link compareShape});
 * 3. otherwise exactly: same keys, arrays equal in length and order, strings exact, numbers numerically.
 * Returns the first difference (path like `$.result.transactions[0].hash`; a missing value is `undefined`).
 */
export function compareResponses(expected: unknown, actual: unknown, options: { speconly?: boolean } = {}): CompareResult {
  if (options.speconly === true && !(isObject(actual) && 'error' in actual)) {
    return compareEnvelopeShape(expected, actual)
  }
  const [expectedRedacted, actualRedacted] = redactErrorMessages(expected, actual)
  return compareExact(expectedRedacted, actualRedacted, '$')
}

/** Copies of both with `message` removed from every `error` object present on both sides at the same place. */
function redactErrorMessages(expected: unknown, actual: unknown): [unknown, unknown] {
  if (isObject(expected) && isObject(actual)) {
    const e: Record<string, unknown> = { ...expected }
    const a: Record<string, unknown> = { ...actual }
    for (const key of Object.keys(e)) {
      if (!(key in a)) continue
      if (key === 'error' && isObject(e[key]) && isObject(a[key])) {
        const { message: _expectedMessage, ...expectedRest } = e[key] as Record<string, unknown>
        const { message: _actualMessage, ...actualRest } = a[key] as Record<string, unknown>
        e[key] = expectedRest
        a[key] = actualRest
      } else {
        ;[e[key], a[key]] = redactErrorMessages(e[key], a[key])
      }
    }
    return [e, a]
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const e = [...expected]
    const a = [...actual]
    for (let i = 0; i < Math.min(e.length, a.length); i++) [e[i], a[i]] = redactErrorMessages(e[i], a[i])
    return [e, a]
  }
  return [expected, actual]
}

/** Objects: the same keys, and each value compared by `compare`. */
function compareKeys(
  e: Record<string, unknown>,
  a: Record<string, unknown>,
  path: string,
  compare: (expected: unknown, actual: unknown, path: string) => CompareResult,
): CompareResult {
  for (const key of Object.keys(e)) {
    if (!Object.hasOwn(a, key)) return { ok: false, path: childPath(path, key), expected: e[key], actual: undefined }
    const result = compare(e[key], a[key], childPath(path, key))
    if (!result.ok) return result
  }
  for (const key of Object.keys(a)) {
    if (!Object.hasOwn(e, key) && !isReceiptExtension(e, key)) return { ok: false, path: childPath(path, key), expected: undefined, actual: a[key] }
  }
  return { ok: true }
}

/**
 * flashchain's one departure from hive's rule 3 (see the README beside the fixtures): a transaction receipt may
 * carry `blockTimestamp`, which geth puts on the receipt's logs but not on the receipt, and anvil puts on both.
 */
function isReceiptExtension(expected: Record<string, unknown>, key: string): boolean {
  return key === 'blockTimestamp' && Object.hasOwn(expected, 'cumulativeGasUsed') && Object.hasOwn(expected, 'transactionHash')
}

function compareExact(expected: unknown, actual: unknown, path: string): CompareResult {
  const kind = kindOf(expected)
  if (kind !== kindOf(actual)) return { ok: false, path, expected, actual }
  if (kind === 'object') return compareKeys(expected as Record<string, unknown>, actual as Record<string, unknown>, path, compareExact)
  if (kind === 'array') {
    const e = expected as unknown[]
    const a = actual as unknown[]
    for (let i = 0; i < Math.max(e.length, a.length); i++) {
      const result = compareExact(e[i], a[i], childPath(path, i))
      if (!result.ok) return result
    }
    return { ok: true }
  }
  // Strings exactly, numbers numerically (JSON numbers are doubles here, as in hive), booleans and null by value.
  return expected === actual ? { ok: true } : { ok: false, path, expected, actual }
}

/** speconly: `jsonrpc` and `id` exact, the same envelope keys, and `result` of the expected shape. */
function compareEnvelopeShape(expected: unknown, actual: unknown): CompareResult {
  if (!isObject(expected) || !isObject(actual)) return compareExact(expected, actual, '$')
  for (const key of Object.keys(expected)) {
    if (!Object.hasOwn(actual, key)) return { ok: false, path: childPath('$', key), expected: expected[key], actual: undefined }
    const path = childPath('$', key)
    const result = key === 'result' ? compareShape(expected[key], actual[key], path) : compareExact(expected[key], actual[key], path)
    if (!result.ok) return result
  }
  for (const key of Object.keys(actual)) {
    if (!Object.hasOwn(expected, key)) return { ok: false, path: childPath('$', key), expected: undefined, actual: actual[key] }
  }
  return { ok: true }
}

/**
 * The same JSON kind; objects with the same keys, recursively; each array element shaped like the expected element
 * at its index, or like the first one past the expected length; a string that is a hex quantity (schema `uint`) in
 * the expectation must be one, hex data must be hex data. Elements go by index because a list's elements need not
 * share one shape: a struct log carries `storage` only at SLOAD and SSTORE, and a hash is read as a quantity or not
 * by its first digit. Against the first element alone, a fixture's own expected response would fail.
 */
export function compareShape(expected: unknown, actual: unknown, path = '$'): CompareResult {
  const kind = kindOf(expected)
  if (kind !== kindOf(actual)) return { ok: false, path, expected, actual }
  if (kind === 'object') return compareKeys(expected as Record<string, unknown>, actual as Record<string, unknown>, path, compareShape)
  if (kind === 'array') {
    const e = expected as unknown[]
    const a = actual as unknown[]
    if (e.length === 0) return { ok: true }
    for (let i = 0; i < a.length; i++) {
      const result = compareShape(i < e.length ? e[i] : e[0], a[i], childPath(path, i))
      if (!result.ok) return result
    }
    return { ok: true }
  }
  if (kind === 'string') {
    const e = expected as string
    const a = actual as string
    if (HEX_QUANTITY.test(e) && !HEX_QUANTITY.test(a)) return { ok: false, path, expected, actual }
    if (!HEX_QUANTITY.test(e) && HEX_DATA.test(e) && !HEX_DATA.test(a)) return { ok: false, path, expected, actual }
  }
  return { ok: true }
}

// ---------------------------------------------------------------------------------------------------------------
// Running

/** The `.io` files under `dir`, relative with `/`, in lexical path order (segment by segment, as Go's filepath.Walk). */
export function listIoFiles(dir: string): string[] {
  const files: string[][] = []
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = join(current, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile() && entry.name.endsWith('.io')) files.push(relative(dir, full).split(sep))
    }
  }
  walk(dir)
  files.sort((a, b) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1
    }
    return a.length - b.length
  })
  return files.map((segments) => segments.join('/'))
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 3)}...`
}

function show(value: unknown): string {
  return value === undefined ? '(missing)' : truncate(JSON.stringify(value), 160)
}

export type CaseResult = { file: string; method: string; ok: boolean; message?: string }

export type RunResult = { passed: number; failed: number; cases: CaseResult[]; methods: Map<string, { passed: number; total: number }> }

/** Sends one request; resolves to the parsed response, or throws with a readable reason. */
async function post(url: string, body: string, timeoutMs: number): Promise<unknown> {
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    })
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause
    throw new Error(`request failed: ${(error as Error).message}${cause === undefined ? '' : ` (${cause.message})`}`)
  }
  const text = await response.text()
  try {
    return JSON.parse(text)
  } catch {
    throw new Error(`HTTP ${response.status}, not a JSON response: ${JSON.stringify(truncate(text, 160))}`)
  }
}

/** Runs every `.io` file under `fixturesDir` (optionally only paths containing `filter`) against `url`, in order. */
export async function runConformance(options: {
  fixturesDir: string
  url: string
  filter?: string
  log?: (line: string) => void
  requestTimeoutMs?: number
}): Promise<RunResult> {
  const log = options.log ?? ((line: string) => console.log(line))
  const files = listIoFiles(options.fixturesDir).filter((file) => options.filter === undefined || file.includes(options.filter))
  const cases: CaseResult[] = []
  const methods = new Map<string, { passed: number; total: number }>()
  for (const file of files) {
    const method = file.includes('/') ? file.slice(0, file.indexOf('/')) : '(root)'
    let message: string | undefined
    try {
      const io = parseIoFile(readFileSync(join(options.fixturesDir, file), 'utf8'))
      for (const [index, exchange] of io.exchanges.entries()) {
        const where = io.exchanges.length > 1 ? ` (exchange ${index + 1})` : ''
        let actual: unknown
        try {
          actual = await post(options.url, exchange.request, options.requestTimeoutMs ?? 30_000)
        } catch (error) {
          message = `${(error as Error).message}${where}`
          break
        }
        const result = compareResponses(JSON.parse(exchange.response), actual, { speconly: io.speconly })
        if (!result.ok) {
          message = `${result.path}: expected ${show(result.expected)}, got ${show(result.actual)}${where}`
          break
        }
      }
    } catch (error) {
      message = `invalid test file: ${(error as Error).message}`
    }
    const ok = message === undefined
    cases.push({ file, method, ok, ...(ok ? {} : { message }) })
    const tally = methods.get(method) ?? { passed: 0, total: 0 }
    tally.total++
    if (ok) tally.passed++
    methods.set(method, tally)
    if (!ok) log(`FAIL ${file}: ${message}`)
  }
  const passed = cases.filter((c) => c.ok).length
  return { passed, failed: cases.length - passed, cases, methods }
}

/** The summary lines: `method: passed/total` per method folder, then `N passed, M failed`. */
export function summaryLines(result: RunResult): string[] {
  return [
    ...[...result.methods].map(([method, { passed, total }]) => `${method}: ${passed}/${total}`),
    `${result.passed} passed, ${result.failed} failed`,
  ]
}

// ---------------------------------------------------------------------------------------------------------------
// The node

export type RunningNode = {
  url: string
  /** What the node wrote to stderr so far (the last 64 KiB). */
  stderr: () => string
  /** SIGTERM, then SIGKILL after `killAfterMs`; resolves once the process has exited. */
  stop: () => Promise<void>
}

const STDERR_KEEP = 64 * 1024

/**
 * Starts `node <cli> --genesis <dir>/genesis.json --import <dir>/chain.rlp --mining manual --revert-code 3 --port 0
 * --ephemeral --host 127.0.0.1` and waits for its `Listening on http://...` line.
 */
export function startNode(options: { fixturesDir: string; cli?: string; startTimeoutMs?: number; killAfterMs?: number }): Promise<RunningNode> {
  const cli = options.cli ?? DEFAULT_CLI
  const args = [
    cli,
    '--genesis',
    join(options.fixturesDir, 'genesis.json'),
    '--import',
    join(options.fixturesDir, 'chain.rlp'),
    '--mining',
    'manual',
    '--revert-code',
    '3',
    '--port',
    '0',
    '--ephemeral',
    '--host',
    '127.0.0.1',
  ]
  const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEEP)
  })
  const exited = new Promise<void>((resolveExit) => {
    if (child.exitCode !== null || child.signalCode !== null) resolveExit()
    else child.once('exit', () => resolveExit())
  })
  const stop = () => stopChild(child, exited, options.killAfterMs ?? 5_000)

  return new Promise<RunningNode>((resolveStart, rejectStart) => {
    let stdoutBuffer = ''
    let settled = false
    const settle = (error: Error | undefined, url?: string) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (error === undefined) {
        resolveStart({ url: url!, stderr: () => stderr, stop })
      } else {
        void stop().then(() => rejectStart(Object.assign(error, { stderr })))
      }
    }
    const timeoutMs = options.startTimeoutMs ?? 60_000
    const timer = setTimeout(() => settle(new Error(`the node did not print "Listening on http://..." within ${timeoutMs} ms`)), timeoutMs)
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (chunk: string) => {
      if (settled) return // keep draining the pipe
      stdoutBuffer += chunk
      const match = /Listening on (http:\/\/\S+)/.exec(stdoutBuffer)
      if (match !== null) settle(undefined, match[1])
      else stdoutBuffer = stdoutBuffer.slice(-4096)
    })
    child.once('error', (error) => settle(new Error(`cannot start the node: ${error.message}`)))
    child.once('exit', (code, signal) =>
      settle(new Error(`the node exited before listening (${signal === null ? `exit code ${code}` : `signal ${signal}`})`)),
    )
  })
}

async function stopChild(child: ChildProcess, exited: Promise<void>, killAfterMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  let timer: NodeJS.Timeout | undefined
  const forced = new Promise<'timeout'>((resolveTimeout) => {
    timer = setTimeout(() => resolveTimeout('timeout'), killAfterMs)
  })
  const outcome = await Promise.race([exited.then(() => 'exited' as const), forced])
  clearTimeout(timer)
  if (outcome === 'timeout') {
    child.kill('SIGKILL')
    await exited
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Command line

const USAGE = `usage: node scripts/conformance.ts [--fixtures DIR] [--url URL] [--filter SUBSTR]

  --fixtures DIR   directory with genesis.json, chain.rlp and the method folders of .io files
                   (default test/conformance/execution-apis/tests)
  --url URL        run against a node that is already running, instead of starting one
  --filter SUBSTR  only the .io files whose path (e.g. eth_call/call-contract.io) contains SUBSTR`

/** Runs the suite; resolves to the process exit code. */
export async function main(
  argv: string[],
  out: (line: string) => void = (line) => console.log(line),
  err: (text: string) => void = (text) => process.stderr.write(text),
): Promise<number> {
  let values: { fixtures?: string; url?: string; filter?: string; help?: boolean }
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: { fixtures: { type: 'string' }, url: { type: 'string' }, filter: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }))
  } catch (error) {
    err(`${(error as Error).message}\n${USAGE}\n`)
    return 2
  }
  if (values.help === true) {
    out(USAGE)
    return 0
  }
  const fixturesDir = values.fixtures === undefined ? DEFAULT_FIXTURES : resolve(values.fixtures)

  let node: RunningNode | undefined
  let url = values.url
  const interrupt = () => {
    void (node?.stop() ?? Promise.resolve()).then(() => process.exit(130))
  }
  process.once('SIGINT', interrupt)
  process.once('SIGTERM', interrupt)
  try {
    if (url === undefined) {
      try {
        node = await startNode({ fixturesDir })
      } catch (error) {
        err(`conformance: ${(error as Error).message}\n`)
        const stderr = (error as { stderr?: string }).stderr ?? ''
        if (stderr !== '') err(`--- node stderr ---\n${stderr}${stderr.endsWith('\n') ? '' : '\n'}`)
        // Every selected case counts as failed: nothing could run.
        const files = listIoFiles(fixturesDir).filter((file) => values.filter === undefined || file.includes(values.filter))
        out(`0 passed, ${files.length} failed`)
        return 1
      }
      url = node.url
      out(`node listening on ${url}`)
    }
    const result = await runConformance({ fixturesDir, url, filter: values.filter, log: out })
    for (const line of summaryLines(result)) out(line)
    if (result.failed > 0 && node !== undefined && node.stderr() !== '') {
      const stderr = node.stderr()
      err(`--- node stderr ---\n${stderr}${stderr.endsWith('\n') ? '' : '\n'}`)
    }
    return result.failed > 0 ? 1 : 0
  } finally {
    await node?.stop()
    process.off('SIGINT', interrupt)
    process.off('SIGTERM', interrupt)
  }
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2))
}
