/**
 * The third-party tools of the compatibility suites (installed by test/compat/package.json, apart from the project's
 * own dependencies) and the node they drive: flashchain's CLI, or anvil when COMPAT_NODE=anvil, which is how
 * scripts/compat.ts runs the same suites against both.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'

import { toHex } from 'viem'
import { afterAll, beforeAll } from 'vitest'
import { mnemonicToAccount } from 'viem/accounts'

import { killHard, startCli } from '../e2e/processes.ts'

export const compatRoot = import.meta.dirname
export const foundryProject = join(compatRoot, 'foundry')
export const hardhatProject = join(compatRoot, 'hardhat')
export const hardhat3Project = join(compatRoot, 'hardhat3')
const modules = join(compatRoot, 'node_modules')

/** The dev mnemonic's accounts 1…4 (account 0 is left to the Hardhat suite), the same on flashchain and anvil. */
export const devAccounts = [1, 2, 3, 4].map((addressIndex) => {
  const account = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex })
  return { address: account.address, privateKey: toHex(account.getHdKey().privateKey!) }
})

export type MiningMode = 'interval' | 'auto'
export type NodeUnderTest = { name: 'flashchain' | 'anvil'; url: string; close(): Promise<void> }

const nodeName = process.env.COMPAT_NODE === 'anvil' ? 'anvil' : 'flashchain'

/**
 * Starts the node on 127.0.0.1 and a free port. `interval` is each node's block clock (flashchain's default, anvil's
 * --block-time 2); `auto` seals each transaction as it arrives (anvil's default).
 */
export async function startNode(mining: MiningMode): Promise<NodeUnderTest> {
  if (nodeName === 'anvil') return startAnvil(mining)
  const dataDir = mkdtempSync(join(tmpdir(), 'flashchain-compat-'))
  const { child, url } = await startCli(dataDir, ['--quiet', '--mining', mining])
  return {
    name: 'flashchain',
    url,
    close: async () => {
      await killHard(child)
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Starts the node before a describe block's cases and stops it after them; the getter gives the running node. */
export function useNode(mining: MiningMode): () => NodeUnderTest {
  let node: NodeUnderTest | undefined
  beforeAll(async () => {
    node = await startNode(mining)
  })
  afterAll(() => node?.close())
  return () => node!
}

/** anvil on 127.0.0.1 and a free port, with `extra` arguments and `env`; `close` kills it by its PID. */
export function startAnvil(mining: MiningMode, extra: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<NodeUnderTest> {
  const args = ['--host', '127.0.0.1', '--port', '0', ...(mining === 'interval' ? ['--block-time', '2'] : []), ...extra]
  const child = spawn(join(modules, '@foundry-rs', 'anvil-linux-amd64', 'bin', 'anvil'), args, { stdio: ['ignore', 'pipe', 'pipe'], env })
  return new Promise((resolve, reject) => {
    let output = ''
    const timeout = setTimeout(() => reject(new Error(`anvil printed no listening line within 60 s:\n${output}`)), 60_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = output.match(/Listening on (\S+)/)
      if (match !== null) {
        clearTimeout(timeout)
        resolve({ name: 'anvil', url: `http://${match[1]}`, close: () => killHard(child) })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('exit', (code) => reject(new Error(`anvil exited with ${code} before listening:\n${output}`)))
  })
}

export type ToolRun = { code: number | null; stdout: string; stderr: string }

const tools = {
  forge: [join(modules, '@foundry-rs', 'forge-linux-amd64', 'bin', 'forge')],
  cast: [join(modules, '@foundry-rs', 'cast-linux-amd64', 'bin', 'cast')],
  // Hardhat runs on this Node, whatever `node` the PATH names.
  hardhat: [process.execPath, join(modules, 'hardhat', 'internal', 'cli', 'bootstrap.js')],
  // Hardhat 3 is its own package (test/compat/hardhat3), since one node_modules holds one hardhat.
  hardhat3: [process.execPath, join(hardhat3Project, 'node_modules', 'hardhat', 'dist', 'src', 'cli.js')],
}

/**
 * Runs a tool to its end, killed after `timeoutMs`. Foundry is kept offline and quiet; the solc wrapper that forge
 * starts (foundry/bin/solc) finds this Node first on the PATH.
 */
export function runTool(
  tool: keyof typeof tools,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ToolRun> {
  const [command, ...prefix] = tools[tool]
  const env = {
    ...process.env,
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
    FOUNDRY_DISABLE_NIGHTLY_WARNING: '1',
    HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
    NO_COLOR: '1',
    // The tools are not flashchain: a hook that `npm run test:published` puts in NODE_OPTIONS is not theirs.
    NODE_OPTIONS: '',
    ...options.env,
  }
  const child = spawn(command!, [...prefix, ...args], { cwd: options.cwd ?? foundryProject, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000)
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** A run that must succeed: its stdout, or an error that shows what the tool printed. */
export async function runOk(tool: keyof typeof tools, args: string[], options: Parameters<typeof runTool>[2] = {}): Promise<string> {
  const result = await runTool(tool, args, options)
  if (result.code !== 0) throw new Error(`${tool} ${args.join(' ')} exited with ${result.code}:\n${result.stderr}${result.stdout}`)
  return result.stdout
}
