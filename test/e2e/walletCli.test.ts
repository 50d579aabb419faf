/**
 * The wallet's command-line options on the real CLI (src/cli.ts): --approval, --approval-timeout and
 * --max-batch-size reach the wallet; a bad --approval value is refused at start.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

import { afterAll, describe, expect, it } from 'vitest'

import { MESSAGES, batch, pollUntil, sendWith } from './walletHelpers.ts'

import type { ChildProcess } from 'node:child_process'

const repoRoot = fileURLToPath(new URL('../../', import.meta.url))
/** A guard against a node that never starts or never stops, with room for a loaded machine. */
const START_TIMEOUT = 60_000
const FROM = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const RECIPIENT = '0x1111111111111111111111111111111111111111'

const children = new Set<ChildProcess>()

afterAll(async () => {
  // Only the processes this file started, one by one.
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue
    const exited = new Promise((resolve) => child.on('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
})

type Started = { url: string; child: ChildProcess }

/** Starts the CLI (in memory, manual mining, a free port) and resolves with its URL (bounded wait). */
function start(args: string[]): Promise<Started> {
  const child = spawn(process.execPath, ['src/cli.ts', '--port', '0', '--mining', 'manual', '--ephemeral', '--quiet', ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`no "Listening on" line after ${START_TIMEOUT} ms:\n${output}`)), START_TIMEOUT)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Listening on (http:\/\/\S+)/.exec(output)
      if (match !== null) {
        clearTimeout(timer)
        resolve({ url: match[1]!, child })
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`exited with ${code} before listening:\n${output}`))
    })
  })
}

/** Runs the CLI to its exit; resolves with the exit code and everything it printed (bounded). */
function runToExit(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['src/cli.ts', ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] })
  children.add(child)
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`still running after ${START_TIMEOUT} ms:\n${output}`)), START_TIMEOUT)
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}

const transfer = (count: number, atomicRequired: boolean) =>
  batch(
    FROM,
    Array.from({ length: count }, () => ({ to: RECIPIENT, value: '0x1' })),
    { atomicRequired },
  )

describe('wallet options on the command line', () => {
  it('--approval reject --max-batch-size 2: 5740 for 3 calls, then 4001 for 2', async () => {
    const { url } = await start(['--approval', 'reject', '--max-batch-size', '2'])
    let response = await sendWith(url, {}, 'wallet_sendCalls', [transfer(3, false)])
    expect(response.error?.code).toBe(5740)
    response = await sendWith(url, {}, 'wallet_sendCalls', [transfer(2, false)])
    expect(response.error?.code).toBe(4001)
    expect(response.error?.message).toContain(MESSAGES.rejected)
  })

  it('--approval manual --approval-timeout 1000: the request waits, is listed, and gets 4001 after the timeout', async () => {
    // Long enough that a loaded machine still sees the request listed before it times out.
    const { url } = await start(['--approval', 'manual', '--approval-timeout', '1000'])
    const started = Date.now()
    const answer = sendWith(url, {}, 'wallet_sendCalls', [transfer(1, false)])
    const listed = await pollUntil(
      async () => (await sendWith(url, {}, 'flashchain_getPendingApprovals', [])).result as { method: string }[],
      (list) => list.length === 1,
    )
    expect(listed[0]!.method).toBe('wallet_sendCalls')
    const response = await answer
    expect(Date.now() - started).toBeGreaterThanOrEqual(995)
    expect(response.error?.code).toBe(4001)
    expect((await sendWith(url, {}, 'flashchain_getPendingApprovals', [])).result).toEqual([])
  })

  it('the default is approve', async () => {
    const { url } = await start([])
    const response = await sendWith(url, {}, 'wallet_sendCalls', [transfer(2, false)])
    expect(response.error).toBeUndefined()
    expect((response.result as { status: string }).status).toBe('pending')
  })

  it('--approval with an unknown value is refused at start with a clear message', async () => {
    const { code, output } = await runToExit(['--port', '0', '--ephemeral', '--approval', 'sometimes'])
    expect(code).not.toBe(0)
    expect(output).toContain('--approval')
    expect(output).not.toContain('Listening on')
  })
})
