import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { encodeDeployData, encodeFunctionData, keccak256, toHex } from 'viem'
import { afterAll, describe, it } from 'vitest'

import { PATCHED_PACKAGES } from '../../src/chain/ethereumjs/patches.ts'
import { optionNames } from '../../src/cli.ts'
import { ETHEREUMJS_BUILD } from '../support/ethereumjsBuild.ts'
import { Noisy, Reverter, Store } from './fixtures/contracts.ts'

import type { ChildProcess } from 'node:child_process'

const repoRoot = fileURLToPath(new URL('../../', import.meta.url))
/** A guard against a node that never starts: a healthy start takes about a second, many more on a loaded machine. */
const START_TIMEOUT = 60_000

const children = new Set<ChildProcess>()
const tempDirs: string[] = []

afterAll(() => {
  // Only the processes this file started, one by one.
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
})

type Run = {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

function run(args: string[], entry = 'src/cli.ts', env: NodeJS.ProcessEnv = process.env): Run {
  const child = spawn(process.execPath, [entry, ...args], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] })
  children.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }))
  })
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}

/** Resolves with the URL of the `Listening on` line, or rejects on exit or after the timeout. */
function listening(process: Run): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "Listening on" line after ${START_TIMEOUT} ms; stderr: ${process.stderr()}`)), START_TIMEOUT)
    const check = () => {
      const match = /Listening on (http:\/\/[^\s]+)/.exec(process.stdout())
      if (match !== null) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    process.child.stdout!.on('data', check)
    void process.exited.then(({ code, signal }) => {
      clearTimeout(timer)
      reject(new Error(`exited (${code ?? signal}) before listening; stderr: ${process.stderr()}`))
    })
    check()
  })
}

/**
 * The node's log lines without their timestamps, once `done(log)` holds (or 20 s passed) and the node has stopped:
 * the lines come from the chain's events, a turn after the change they tell of.
 */
async function logLines(server: Run, done: (log: string) => boolean): Promise<string[]> {
  for (let waited = 0; !done(server.stderr()) && waited < 20_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20))
  server.child.kill('SIGTERM')
  await server.exited
  return server
    .stderr()
    .split('\n')
    .map((line) => line.replace(/^\S+Z /, ''))
}

/** An address as the log shortens it. */
const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await response.json()) as { result?: unknown; error?: { code: number; message: string } }
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.code} ${body.error.message}`)
  return body.result
}

// Each case is its own process: they run side by side, so the file takes about as long as its slowest case.
describe.concurrent('flashchain CLI', () => {
  it('starts on a free port, answers requests, and exits 0 on SIGTERM', async ({ expect }) => {
    const server = run(['--port', '0', '--mining', 'manual', '--ephemeral', '--quiet'])
    const url = await listening(server)
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(Number(new URL(url).port)).toBeGreaterThan(0)

    expect(await rpc(url, 'eth_chainId')).toBe('0x7a69')
    expect(await rpc(url, 'eth_blockNumber')).toBe('0x0')
    await rpc(url, 'eth_sendTransaction', [
      { from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', value: '0x1' },
    ])
    await rpc(url, 'evm_mine')
    expect(await rpc(url, 'eth_blockNumber')).toBe('0x1')

    server.child.kill('SIGTERM')
    expect(await server.exited).toEqual({ code: 0, signal: null })
    // --quiet: the listening line is all that is printed, transactions and blocks included.
    expect(server.stdout()).toBe(`Listening on ${url}\n`)
    expect(server.stderr()).toBe('')
  })

  it('honours --chain-id, prints the dev accounts without --quiet, and exits 0 on SIGINT', async ({ expect }) => {
    const server = run(['--port', '0', '--mining', 'manual', '--ephemeral', '--chain-id', '1337'])
    const url = await listening(server)
    expect(await rpc(url, 'eth_chainId')).toBe('0x539')
    expect(await rpc(url, 'net_version')).toBe('1337')
    expect(server.stdout()).toContain('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')
    server.child.kill('SIGINT')
    expect(await server.exited).toEqual({ code: 0, signal: null })
  })

  it('shows the chain live without --quiet: each flashblock with transactions, each transaction, each seal', async ({ expect }) => {
    const server = run(['--port', '0', '--mining', 'manual', '--ephemeral'])
    const url = await listening(server)
    const from = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
    const transfer = await rpc(url, 'eth_sendTransaction', [{ from, to: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', value: '0x1' }])
    // Init code of a contract whose runtime returns 42.
    const creation = await rpc(url, 'eth_sendTransaction', [{ from, data: '0x600a600c600039600a6000f3602a60005260206000f3' }])
    await rpc(url, 'flashchain_preconfirm')
    await rpc(url, 'evm_mine')
    const head = (await rpc(url, 'eth_getBlockByNumber', ['latest', false])) as { hash: string }
    const created = ((await rpc(url, 'eth_getTransactionReceipt', [creation])) as { contractAddress: string }).contractAddress
    const lines = await logLines(server, (log) => log.includes('sealed block 1'))
    expect(lines).toContain('flashblock 1.1: 2 transactions pre-confirmed')
    expect(lines).toContain(`  ${transfer} 0.000000000000000001 ETH → 0x7099…79c8 gas 21000`)
    const deployed = short(created!)
    expect(lines.some((line) => new RegExp(`^  ${creation} deployed ${deployed} gas \\d+$`).test(line))).toBe(true)
    expect(lines.some((line) => line.startsWith(`sealed block 1 (2 transactions) ${head.hash} in `))).toBe(true)
    // The flashblock that closed the block added nothing, so it has no line.
    expect(lines.filter((line) => line.startsWith('flashblock '))).toHaveLength(1)
  })

  it('says why each failed transaction failed: out of gas, Error(string), Panic(uint256), a custom error, nothing', async ({ expect }) => {
    const server = run(['--port', '0', '--mining', 'manual', '--ephemeral'])
    const url = await listening(server)
    const from = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
    const send = (fields: Record<string, string>) => rpc(url, 'eth_sendTransaction', [{ from, ...fields }]) as Promise<string>
    const deployments = [await send({ data: Reverter.bytecode }), await send({ data: Store.bytecode + '0'.repeat(63) + '1' })]
    await rpc(url, 'flashchain_preconfirm')
    const [reverter, store] = await Promise.all(
      deployments.map(async (hash) => ((await rpc(url, 'eth_getTransactionReceipt', [hash])) as { contractAddress: string }).contractAddress),
    )
    // Given gas, so that no estimate refuses them first.
    const call = (to: string, data: string, gas = '0x30000') => send({ to: to!, data, gas })
    const selector = (signature: string) => keccak256(toHex(signature)).slice(0, 10)
    // No --abi: each call is named by its selector, and the custom error by its selector and length.
    const failing = [
      [await call(reverter!, encodeFunctionData({ abi: Reverter.abi, functionName: 'nope' })), `selector ${selector('nope()')}`, 'reverted: nope'],
      [
        await call(reverter!, encodeFunctionData({ abi: Reverter.abi, functionName: 'panic', args: [0n] })),
        `selector ${selector('panic(uint256)')}`,
        'reverted: panic: division or modulo by zero (0x12)',
      ],
      [
        await call(reverter!, encodeFunctionData({ abi: Reverter.abi, functionName: 'custom' })),
        `selector ${selector('custom()')}`,
        `reverted: data ${selector('Custom(uint256,address)')}… (68 bytes)`,
      ],
      // A fresh slot costs 20,000 gas more than this leaves after the intrinsic gas.
      [
        await call(store!, encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [9n] }), '0x6000'),
        `selector ${selector('set(uint256)')}`,
        'reverted: out of gas',
      ],
      // No function with that selector and no fallback: a revert without data.
      [await call(reverter!, '0x12345678'), 'selector 0x12345678', 'reverted'],
    ] as const
    await rpc(url, 'flashchain_preconfirm')
    const expected = await Promise.all(
      failing.map(async ([hash, call, outcome]) => {
        const receipt = (await rpc(url, 'eth_getTransactionReceipt', [hash])) as { status: string; to: string; gasUsed: string }
        expect(receipt.status).toBe('0x0')
        return `  ${hash} ${short(receipt.to)} ${call} gas ${BigInt(receipt.gasUsed)} ${outcome}`
      }),
    )
    const lines = await logLines(server, (log) => expected.every((line) => log.includes(line)))
    expect(lines.filter((line) => failing.some(([hash]) => line.includes(hash)))).toEqual(expected)
  })

  it('names calls and custom errors from --abi and prints console.log under its transaction, failed ones too', async ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), 'flashchain-abi-'))
    tempDirs.push(dir)
    writeFileSync(join(dir, 'Noisy.json'), JSON.stringify({ abi: Noisy.abi }))
    const server = run(['--port', '0', '--mining', 'manual', '--ephemeral', '--abi', dir])
    const url = await listening(server)
    const from = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
    const alice = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
    // Given gas, so that no estimate refuses the failing ones first.
    const send = (fields: Record<string, string>) => rpc(url, 'eth_sendTransaction', [{ from, gas: '0x100000', ...fields }]) as Promise<string>
    const deploy = (supply: bigint) => send({ data: encodeDeployData({ abi: Noisy.abi, bytecode: Noisy.bytecode, args: [supply] }) })
    const failedDeploy = await deploy(0n)
    const deployment = await deploy(1000n)
    await rpc(url, 'flashchain_preconfirm')
    const receipt = (hash: string) =>
      rpc(url, 'eth_getTransactionReceipt', [hash]) as Promise<{ status: string; gasUsed: string; contractAddress: string }>
    const token = (await receipt(deployment)).contractAddress
    const call = (data: `0x${string}`) => send({ to: token, data })
    const sent = await call(encodeFunctionData({ abi: Noisy.abi, functionName: 'send', args: [alice, 10n] }))
    const overdrawn = await call(encodeFunctionData({ abi: Noisy.abi, functionName: 'send', args: [alice, 5000n] }))
    const failed = await call(encodeFunctionData({ abi: Noisy.abi, functionName: 'fail' }))
    await rpc(url, 'flashchain_preconfirm')
    const gas = async (hash: string) => BigInt((await receipt(hash)).gasUsed)
    expect((await receipt(failedDeploy)).status).toBe('0x0')

    const expected = [
      `  ${failedDeploy} deploy gas ${await gas(failedDeploy)} reverted: no supply`,
      `    minting 0 to ${from}`,
      `  ${deployment} deployed ${short(token)} gas ${await gas(deployment)}`,
      `    minting 1000 to ${from}`,
      'flashblock 1.2: 3 transactions pre-confirmed',
      `  ${sent} ${short(token)}.send(0x7099…79c8, 10) gas ${await gas(sent)}`,
      '    send 10',
      `  ${overdrawn} ${short(token)}.send(…) gas ${await gas(overdrawn)} reverted: TooMuch(5000, 990)`,
      '    send 5000',
      `  ${failed} ${short(token)}.fail() gas ${await gas(failed)} reverted: no luck`,
      '    about to fail',
    ]
    const lines = await logLines(server, (log) => log.includes(expected.at(-1)!))
    const first = lines.indexOf('flashblock 1.1: 2 transactions pre-confirmed')
    expect(first).toBeGreaterThan(-1)
    expect(lines.slice(first + 1, first + 1 + expected.length)).toEqual(expected)
    // Only a revert's reason, which is never cut, takes a line past 120 columns: the call gave it all its room.
    const fitting = expected.filter((line) => !line.includes(' reverted: '))
    expect(Math.max(...fitting.map((line) => line.length))).toBeLessThanOrEqual(120)
  })

  it('resumes a chain from --data-dir after a SIGTERM', async ({ expect }) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'flashchain-cli-'))
    tempDirs.push(dataDir)
    const first = run(['--port', '0', '--mining', 'manual', '--data-dir', dataDir, '--quiet'])
    const firstUrl = await listening(first)
    await rpc(firstUrl, 'evm_mine')
    await rpc(firstUrl, 'evm_mine')
    const head = (await rpc(firstUrl, 'eth_getBlockByNumber', ['latest', false])) as { number: string; hash: string }
    expect(head.number).toBe('0x2')
    first.child.kill('SIGTERM')
    expect((await first.exited).code).toBe(0)

    const second = run(['--port', '0', '--mining', 'manual', '--data-dir', dataDir, '--quiet'])
    const secondUrl = await listening(second)
    expect(await rpc(secondUrl, 'eth_blockNumber')).toBe('0x2')
    expect(((await rpc(secondUrl, 'eth_getBlockByNumber', ['latest', false])) as { hash: string }).hash).toBe(head.hash)
    second.child.kill('SIGTERM')
    expect((await second.exited).code).toBe(0)
  })

  it('bin/flashchain.js, which npm start runs, starts the same server', async ({ expect }) => {
    const server = run(['--port', '0', '--mining', 'manual', '--ephemeral', '--quiet', '--debug'], 'bin/flashchain.js')
    const url = await listening(server)
    expect(await rpc(url, 'eth_chainId')).toBe('0x7a69')
    // Node was started again in the same process with the flags the bin adds: a bounded young generation, a slowly
    // growing old one, two GC helper threads, and gc() for giving memory back at rest.
    const argv = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0')
    expect(argv).toContain('--max-semi-space-size=16')
    expect(argv).toContain('--heap-growing-percent=25')
    expect(argv).toContain('--v8-pool-size=2')
    expect(argv).toContain('--expose-gc')
    // With gc() exposed, start-up's garbage is collected once the server is at rest, after it listened.
    const trim = /memory trim: \d+ → \d+ MB resident/
    for (let waited = 0; !trim.test(server.stderr()) && waited < 20_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(server.stderr()).toMatch(trim)
    server.child.kill('SIGTERM')
    expect(await server.exited).toEqual({ code: 0, signal: null })
  })

  it('--workers 0 and --workers 2 answer calls alike', async ({ expect }) => {
    const estimate = { from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', value: '0x1' }
    for (const workers of ['0', '2']) {
      const server = run(['--port', '0', '--mining', 'manual', '--ephemeral', '--quiet', '--workers', workers])
      const url = await listening(server)
      // Workers start beside the server; answers are the same whichever thread gives them.
      for (let i = 0; i < 20; i++) expect(await rpc(url, 'eth_estimateGas', [estimate])).toBe('0x5208')
      expect(await rpc(url, 'eth_call', [{ to: estimate.to }])).toBe('0x')
      server.child.kill('SIGTERM')
      expect(await server.exited).toEqual({ code: 0, signal: null })
    }
  })

  it('says at start when @ethereumjs runs without its speed patches, and answers the same', async ({ expect }) => {
    const warning = `warning: ${PATCHED_PACKAGES.join(', ')} without flashchain's speed patches: the same answers, more slowly`
    // Each server gets the build named here, whichever build this test process runs on.
    const { NODE_OPTIONS: _, [ETHEREUMJS_BUILD]: __, ...patchedEnv } = process.env
    const builds = { patched: patchedEnv, published: { ...patchedEnv, NODE_OPTIONS: '--import=./test/support/published.ts' } }
    const answers: Record<string, unknown> = {}
    for (const [build, env] of Object.entries(builds)) {
      const server = run(['--port', '0', '--mining', 'manual', '--ephemeral'], 'src/cli.ts', env)
      const url = await listening(server)
      if (build === 'published') expect(server.stderr()).toContain(warning)
      else expect(server.stderr()).not.toContain('speed patches')
      answers[build] = await rpc(url, 'eth_estimateGas', [{ from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', data: '0x6001600055' }])
      server.child.kill('SIGTERM')
      expect(await server.exited).toEqual({ code: 0, signal: null })
    }
    expect(answers.published).toBe(answers.patched)
  })

  it('a negative --workers exits 2 with an error naming the option', async ({ expect }) => {
    const bad = run(['--workers', '-1'])
    expect((await bad.exited).code).toBe(2)
    expect(bad.stderr()).toContain('--workers')
  })

  it('--code-size-limit with --disable-code-size-limit exits 2, as anvil refuses the pair', async ({ expect }) => {
    const bad = run(['--code-size-limit', '30000', '--disable-code-size-limit'])
    expect(await bad.exited).toEqual({ code: 2, signal: null })
    expect(bad.stderr()).toContain('--code-size-limit cannot be used with --disable-code-size-limit')
    const zero = run(['--code-size-limit', '0'])
    expect(await zero.exited).toEqual({ code: 2, signal: null })
    expect(zero.stderr()).toContain('--code-size-limit must be an integer ≥ 1, got "0"')
  })

  it('--max-connections 0 exits 2 with an error naming the option', async ({ expect }) => {
    const bad = run(['--max-connections', '0'])
    expect((await bad.exited).code).toBe(2)
    expect(bad.stderr()).toContain('--max-connections must be an integer ≥ 1, got "0"')
  })

  it('--help prints the options and exits 0', async ({ expect }) => {
    const help = run(['--help'])
    expect(await help.exited).toEqual({ code: 0, signal: null })
    const text = help.stdout()
    expect(text).toMatch(/^Usage: flashchain \[options\]/)
    // Every option the parser takes, so that a new one cannot be left out of the help.
    expect(optionNames.length).toBeGreaterThan(40)
    for (const option of optionNames) {
      expect(text).toContain(option)
    }
    expect(help.stderr()).toBe('')
  })

  it('the README documents every option in its table', ({ expect }) => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8')
    const documented = new Set([...readme.matchAll(/^\| `(--[a-z-]+)/gm)].map((match) => match[1]))
    expect(optionNames.filter((option) => option !== '--help' && !documented.has(option))).toEqual([])
  })

  it('--version and -V print the version and exit 0', async ({ expect }) => {
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }
    for (const flag of ['--version', '-V']) {
      const printed = run([flag])
      expect(await printed.exited).toEqual({ code: 0, signal: null })
      expect(printed.stdout()).toBe(`flashchain ${version}\n`)
    }
  })

  it('an unknown option exits 2 naming the option it resembles, without the whole help', async ({ expect }) => {
    const typo = run(['--blok-time', '100'])
    expect((await typo.exited).code).toBe(2)
    expect(typo.stderr()).toBe('flashchain: unknown option --blok-time; did you mean --block-time?\nflashchain --help lists every option.\n')
    const far = run(['--colour'])
    expect((await far.exited).code).toBe(2)
    expect(far.stderr()).toBe('flashchain: unknown option --colour\nflashchain --help lists every option.\n')
  })

  it('the --fork-* options: each needs --fork-url, which must be an http(s) URL; the cache is kept or not, not both', async ({ expect }) => {
    const cases: [string[], string][] = [
      [['--fork-block-number', '5'], 'flashchain: --fork-block-number needs --fork-url\n'],
      [['--no-fork-cache'], 'flashchain: --no-fork-cache needs --fork-url\n'],
      [['--fork-url', 'ws://127.0.0.1:1'], 'flashchain: --fork-url must be an http or https URL, got "ws://127.0.0.1:1"\n'],
      [
        ['--fork-url', 'http://127.0.0.1:1', '--fork-cache', 'x', '--no-fork-cache'],
        'flashchain: --fork-cache cannot be used with --no-fork-cache\n',
      ],
    ]
    for (const [args, message] of cases) {
      const bad = run(args)
      expect((await bad.exited).code).toBe(2)
      expect(bad.stderr()).toBe(`${message}flashchain --help lists every option.\n`)
    }
  })

  it('--block-time under the flashblock interval names both values, and which is the default', async ({ expect }) => {
    const short = run(['--block-time', '100'])
    expect((await short.exited).code).toBe(2)
    expect(short.stderr()).toContain('--flashblock-interval (200 ms, the default) must not exceed --block-time (100 ms)')
  })

  it('a port in use exits 1 saying so, and how to choose another', async ({ expect }) => {
    const first = run(['--port', '0', '--ephemeral', '--quiet'])
    const port = new URL(await listening(first)).port
    const second = run(['--port', port, '--ephemeral', '--quiet'])
    expect((await second.exited).code).toBe(1)
    expect(second.stderr()).toBe(
      `flashchain: 127.0.0.1:${port} is in use, by another node perhaps: choose another with --port N, or --port 0 for a free one\n`,
    )
    first.child.kill('SIGTERM')
    await first.exited
  })

  it('the banner gives the WebSocket, flashblocks and console URLs, the mining, and the data dir it resumed', async ({ expect }) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'flashchain-banner-'))
    tempDirs.push(dataDir)
    const first = run(['--port', '0', '--data-dir', dataDir, '--mining', 'manual'])
    const url = await listening(first)
    const { host } = new URL(url)
    expect(first.stdout()).toContain(
      [
        `WebSocket    ws://${host}`,
        `Flashblocks  ws://${host}/flashblocks`,
        `Console page ${url}/`,
        'Mining       manual: none until evm_mine or flashchain_preconfirm',
        `Data         ${dataDir}\n`,
      ].join('\n'),
    )
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"evm_mine","params":[]}',
    })
    first.child.kill('SIGTERM')
    await first.exited
    // A clean shutdown takes its pid file away.
    expect(readdirSync(dataDir)).not.toContain('flashchain.pid')

    const again = run(['--port', '0', '--data-dir', dataDir])
    await listening(again)
    expect(again.stdout()).toContain(
      `Mining       interval: a block every 2000 ms, a flashblock every 200 ms\nData         ${dataDir}, resumed at block 1\n`,
    )
    again.child.kill('SIGTERM')
    await again.exited
  })

  it('-h is --help', async ({ expect }) => {
    const help = run(['-h'])
    expect((await help.exited).code).toBe(0)
    expect(help.stdout()).toMatch(/^Usage: flashchain \[options\]/)
  })

  it('a bad --mining value exits 2 with an error naming the option', async ({ expect }) => {
    const bad = run(['--mining', 'sometimes'])
    expect(await bad.exited).toEqual({ code: 2, signal: null })
    expect(bad.stderr()).toContain('--mining')
    expect(bad.stderr()).toContain('--mining must be one of interval, manual, auto, got "sometimes"')
    expect(bad.stdout()).toBe('')
  })

  it('a bad --default-block-tag value exits 2 with an error naming the option', async ({ expect }) => {
    const bad = run(['--default-block-tag', 'safe'])
    expect(await bad.exited).toEqual({ code: 2, signal: null })
    expect(bad.stderr()).toContain('--default-block-tag must be latest or pending, got "safe"')
    expect(bad.stdout()).toBe('')
  })

  it('an unknown option exits 2 with an error naming it', async ({ expect }) => {
    const bad = run(['--bogus-option'])
    expect((await bad.exited).code).toBe(2)
    expect(bad.stderr()).toContain('--bogus-option')
  })

  it('a non-numeric --port exits 2 with an error naming the option', async ({ expect }) => {
    const bad = run(['--port', 'eighty'])
    expect((await bad.exited).code).toBe(2)
    expect(bad.stderr()).toContain('--port')
  })

  it('follow: without a stream, or with one that is not ws://, exits 2 pointing to its own help; --help prints it', async ({ expect }) => {
    const none = run(['follow'])
    expect(await none.exited).toEqual({ code: 2, signal: null })
    expect(none.stderr()).toContain('follow takes one argument')
    expect(none.stderr()).toContain('flashchain follow --help lists every option')
    const http = run(['follow', 'http://127.0.0.1:8545/flashblocks'])
    expect((await http.exited).code).toBe(2)
    expect(http.stderr()).toContain('the stream must be a ws:// or wss:// URL')
    const help = run(['follow', '--help'])
    expect((await help.exited).code).toBe(0)
    expect(help.stdout()).toMatch(/^Usage: flashchain follow <ws-url> \[options\]/)
  })
})
