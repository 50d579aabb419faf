// `npm run test:release`: the package as a user gets it. Packs the repository (prepack builds dist/ and the console
// page, once, and leaves the repository's package.json as it found it), installs the tarball into a new project of its
// own (npm warns of nothing in flashchain, and the installed package.json has no script naming a file it lacks),
// compares the @ethereumjs packages installed with it byte for byte with the repository's patched ones, and then, on
// Node 24 (this one) and on Node 22 (the npm package `node`, at the oldest version flashchain supports):
//   - `npx flashchain --port 0` starts, answers a request, runs on that Node, with its speed patches, pre-confirms a
//     transfer, answers a call only an execution worker can, prints no warning (pending deprecations included), and
//     stops on SIGTERM;
//   - the suite in test/package/ (a vitest globalSetup with snapshots between files, and a prool pool) passes;
//   - test/package/consumer.ts type-checks against the shipped declarations.
// An older Node must get one line naming the version needed, from the command line and from an import; require() gets
// one saying the package is an ES module. Every server is on 127.0.0.1, every wait bounded, and
// every process started here is stopped by its process group. RELEASE_CHECK_KEEP=1 keeps the directory.
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The oldest Node the package supports (package.json's engines), and one before it. */
const OLDEST_NODE = '22.13.1'
const TOO_OLD_NODE = '20'

const root = fileURLToPath(new URL('..', import.meta.url))
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
  bundleDependencies: string[]
}
const work = mkdtempSync(join(os.tmpdir(), 'flashchain-release-'))
const started = performance.now()

function step(line: string) {
  process.stdout.write(`release check (${((performance.now() - started) / 1000).toFixed(0)} s): ${line}\n`)
}

/** Runs a command to its end, failing with its output unless it exits 0. */
function run(file: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): { stdout: string; stderr: string } {
  const result = spawnSync(file, args, { ...options, encoding: 'utf8', timeout: 600_000, maxBuffer: 64 * 1024 * 1024 })
  if (result.status !== 0) {
    throw new Error(`${[file, ...args].join(' ')} exited with ${result.status ?? result.signal ?? result.error}:\n${result.stdout}\n${result.stderr}`)
  }
  return { stdout: result.stdout, stderr: result.stderr }
}

/** npm as the one running this script (npm run sets npm_execpath), on this Node. */
function npm(args: string[], cwd: string): { stdout: string; stderr: string } {
  const cli = process.env.npm_execpath
  return cli === undefined ? run('npm', args, { cwd }) : run(process.execPath, [cli, ...args], { cwd })
}

function sizeOf(path: string): number {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.size
  return readdirSync(path).reduce((total, name) => total + sizeOf(join(path, name)), 0)
}

/** Fails unless every file under `installed` has the same bytes as its counterpart under `checkout`. */
function sameFiles(installed: string, checkout: string): void {
  for (const entry of readdirSync(installed, { withFileTypes: true })) {
    const path = join(installed, entry.name)
    if (entry.isDirectory()) sameFiles(path, join(checkout, entry.name))
    else if (!readFileSync(path).equals(readFileSync(join(checkout, entry.name))))
      throw new Error(`${path} differs from ${join(checkout, entry.name)}`)
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`

/** Installs the npm package `node` at `version` into its own directory and returns its binary. */
function installNode(version: string): string {
  const prefix = join(work, `node-${version}`)
  npm(['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', `node@${version}`], work)
  return join(prefix, 'node_modules', '.bin', 'node')
}

/** `npx flashchain --port 0` on `node`: the listening line, a request, the Node it runs on, the EVM on both threads, the patches, SIGTERM. */
async function checkCommand(node: string, project: string, version: string): Promise<void> {
  // Deprecations Node only announces with --pending-deprecation too: the check below fails on any warning.
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}`, NODE_OPTIONS: '--pending-deprecation' }
  const child = spawn('npx', ['--no-install', 'flashchain', '--port', '0', '--ephemeral'], { cwd: project, env, detached: true })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  // 'close', not 'exit': npx may exit on the signal before the node it started has written its last line to the
  // pipes they share, and 'close' waits for every writer to let go of them.
  const exited = new Promise<number | string>((resolve) => child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown')))
  const stop = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal)
    } catch {
      // Already gone.
    }
  }
  try {
    const deadline = Date.now() + 120_000
    let url: string | undefined
    while (url === undefined) {
      url = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1]
      if (child.exitCode !== null) throw new Error(`npx flashchain exited with ${child.exitCode}:\n${output}`)
      if (Date.now() > deadline) throw new Error(`npx flashchain did not listen within 120 s:\n${output}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
        { jsonrpc: '2.0', id: 2, method: 'web3_clientVersion' },
      ]),
    })
    const answers = (await response.json()) as { id: number; result: string }[]
    const expected = [
      { jsonrpc: '2.0', id: 1, result: '0x7a69' },
      { jsonrpc: '2.0', id: 2, result: `anvil/flashchain/v${manifest.version}/node${version}` },
    ]
    if (JSON.stringify(answers) !== JSON.stringify(expected)) throw new Error(`npx flashchain answered ${JSON.stringify(answers)}`)
    await checkExecution(url)
    // A worker that fails to load is replaced, and after three the main thread answers the call itself: the log is
    // what tells.
    if (/execution worker/.test(output)) throw new Error(`npx flashchain's execution worker failed:\n${output}`)
    if (/without flashchain's speed patches/.test(output)) throw new Error(`the installed package runs without its patches:\n${output}`)
    if (/Warning/.test(output)) throw new Error(`npx flashchain printed a warning:\n${output}`)
    stop('SIGTERM')
    const timer = setTimeout(() => stop('SIGKILL'), 30_000)
    await exited
    clearTimeout(timer)
    if (!/SIGTERM: shutting down/.test(output)) throw new Error(`npx flashchain did not shut down on SIGTERM:\n${output}`)
  } finally {
    stop('SIGKILL')
  }
}

/** Posts one JSON-RPC request and returns its result, failing on an error. */
async function request(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const answer = (await response.json()) as { result?: unknown; error?: unknown }
  if (!('result' in answer)) throw new Error(`npx flashchain answered ${method} with ${JSON.stringify(answer)}`)
  return answer.result
}

/**
 * The bundle runs the EVM on both threads: a transfer is pre-confirmed by the main thread, and a call too long for it
 * (a loop of 200,000 turns, past the 50 ms the main thread tries a call for) goes to an execution worker, which loads
 * dist/worker.js.
 */
async function checkExecution(url: string): Promise<void> {
  const [from] = (await request(url, 'eth_accounts', [])) as string[]
  const to = '0x00000000000000000000000000000000000000aa'
  const hash = await request(url, 'eth_sendTransaction', [{ from, to, value: '0x1' }])
  const deadline = Date.now() + 30_000
  let receipt: { status?: string } | null = null
  while (receipt === null && Date.now() < deadline) {
    receipt = (await request(url, 'eth_getTransactionReceipt', [hash])) as { status?: string } | null
    if (receipt === null) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  if (receipt?.status !== '0x1') throw new Error(`npx flashchain: the transfer's receipt is ${JSON.stringify(receipt)}`)

  // PUSH3 200000, then JUMPDEST PUSH1 1 SWAP1 SUB DUP1 PUSH1 4 JUMPI until it is 0; then MSTORE 0 and RETURN 32 bytes.
  const loop = '0x62030d405b600190038060045760005260206000f3'
  const result = await request(url, 'eth_call', [{ to, gas: '0x5f5e100' }, 'latest', { [to]: { code: loop } }])
  if (result !== `0x${'0'.repeat(64)}`) throw new Error(`npx flashchain: the loop's eth_call returned ${JSON.stringify(result)}`)
}

/**
 * Fails if a script of the installed package's manifest names a file (a path ending in .js, .ts, .cjs, .mjs or .cts) the
 * package does not hold, or if it has a script npm would run or ask a project to approve at install.
 */
function checkScripts(installed: string): void {
  const { scripts = {} } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }
  const lifecycle = ['preinstall', 'install', 'postinstall', 'prepare'].filter((name) => name in scripts)
  if (lifecycle.length > 0) throw new Error(`the installed package.json has install scripts: ${lifecycle.join(', ')}`)
  for (const [name, script] of Object.entries(scripts)) {
    for (const [file] of script.matchAll(/[\w./-]+\.[cm]?[jt]s\b/g)) {
      if (!existsSync(join(installed, file))) throw new Error(`the installed package.json's script ${name} runs ${file}, which the package lacks`)
    }
  }
}

try {
  step(`packing flashchain ${manifest.version}`)
  const manifestBefore = readFileSync(join(root, 'package.json'))
  const packed = npm(['pack', '--pack-destination', work], root)
  if (!readFileSync(join(root, 'package.json')).equals(manifestBefore)) throw new Error('npm pack left package.json changed')
  // build-console.ts prints one line per file it writes: app.js once means the page was built once.
  const consoleBuilds = packed.stdout.match(/^console\/dist\/assets\/app\.js: /gm)?.length ?? 0
  if (consoleBuilds !== 1) throw new Error(`npm pack built the console page ${consoleBuilds} times, not once:\n${packed.stdout}`)
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'))
  if (tarball === undefined) throw new Error('npm pack wrote no tarball')

  const project = join(work, 'project')
  cpSync(join(root, 'test', 'package'), project, { recursive: true })
  const devDependency = (name: string) => manifest.devDependencies[name] ?? manifest.dependencies[name]!
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify(
      {
        name: 'flashchain-consumer',
        private: true,
        type: 'module',
        dependencies: { flashchain: `file:../${tarball}` },
        devDependencies: Object.fromEntries(['@types/node', 'prool', 'typescript', 'viem', 'vitest'].map((name) => [name, devDependency(name)])),
      },
      null,
      2,
    )}\n`,
  )
  step(`installing ${tarball} into a new project`)
  const install = npm(['install', '--no-audit', '--no-fund'], project)
  // npm names each package whose install scripts it would run or asks a project to approve, at warn level.
  const warned = `${install.stdout}${install.stderr}`.split('\n').filter((line) => /npm warn/i.test(line) && line.includes('flashchain@'))
  if (warned.length > 0) throw new Error(`npm install warned about flashchain:\n${warned.join('\n')}`)
  const installed = join(project, 'node_modules', 'flashchain')
  step('the installed package.json runs no script at install and names no file the package lacks')
  checkScripts(installed)
  step(`tarball ${mb(statSync(join(work, tarball)).size)}, installed package ${mb(sizeOf(installed))}`)
  // The JavaScript is the bundle scripts/build-dist.ts makes: the entry points, the worker and a few shared chunks.
  const javascript = readdirSync(join(installed, 'dist'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.js'))
  const entries = ['index.js', 'cli.js', 'chains.js', 'prool.js', 'playwright.js', 'worker.js']
  if (javascript.length > 24 || !entries.every((name) => javascript.includes(name)))
    throw new Error(`dist/ is not the bundle (${entries.join(', ')} and a few chunks): ${javascript.join(', ')}`)
  step(`dist/ is the bundle: ${javascript.length} JavaScript files`)
  step("the installed @ethereumjs is the checkout's, patched")
  for (const name of manifest.bundleDependencies) sameFiles(join(installed, 'node_modules', name), join(root, 'node_modules', name))

  step(`installing Node ${OLDEST_NODE} and Node ${TOO_OLD_NODE}`)
  const runtimes = [
    { node: process.execPath, version: process.versions.node },
    { node: installNode(OLDEST_NODE), version: OLDEST_NODE },
  ]
  const tooOld = installNode(TOO_OLD_NODE)

  for (const { node, version } of runtimes) {
    step(`Node ${version}: npx flashchain`)
    await checkCommand(node, project, version)
    step(`Node ${version}: the suite in test/package/`)
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}` }
    delete env.NODE_OPTIONS
    run(node, [join('node_modules', 'vitest', 'vitest.mjs'), 'run'], { cwd: project, env })
    step(`Node ${version}: the declarations`)
    run(node, [join('node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: project, env })
  }

  step(`Node ${TOO_OLD_NODE}: refused in one line`)
  const refused = spawnSync(tooOld, [join(installed, 'bin', 'flashchain.js'), '--port', '0'], { cwd: project, encoding: 'utf8', timeout: 30_000 })
  const oldVersion = spawnSync(tooOld, ['--version'], { encoding: 'utf8' }).stdout.trim()
  const line = `flashchain needs Node.js 22.13 or newer (found ${oldVersion})\n`
  if (refused.status !== 1 || refused.stderr !== line || refused.stdout !== '') {
    throw new Error(
      `Node ${oldVersion} got exit ${refused.status}, stdout ${JSON.stringify(refused.stdout)}, stderr ${JSON.stringify(refused.stderr)}`,
    )
  }

  step(`Node ${TOO_OLD_NODE}: the library refused in one line`)
  const imported = spawnSync(tooOld, ['--input-type=module', '-e', "import 'flashchain'"], { cwd: project, encoding: 'utf8', timeout: 30_000 })
  if (imported.status !== 1 || !imported.stderr.includes(`Error: flashchain needs Node.js 22.13 or newer (found ${oldVersion})\n`)) {
    throw new Error(`importing on Node ${oldVersion} got exit ${imported.status}, stderr ${JSON.stringify(imported.stderr)}`)
  }

  step("require('flashchain') says the package is an ES module")
  const required = spawnSync(process.execPath, ['-e', "require('flashchain')"], { cwd: project, encoding: 'utf8', timeout: 30_000 })
  if (required.status !== 1 || !required.stderr.includes("Error: flashchain is an ES module: use `import { createFlashchain } from 'flashchain'`")) {
    throw new Error(`require() got exit ${required.status}, stderr ${JSON.stringify(required.stderr)}`)
  }
  step('passed')
} finally {
  if (process.env.RELEASE_CHECK_KEEP === undefined) rmSync(work, { recursive: true, force: true })
  else step(`kept ${work}`)
}
