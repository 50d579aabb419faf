// Profiles flashchain under one workload: `node bench/profile.ts [erc20|call|transfer|code] [seconds]`.
// Starts the server under `node --cpu-prof` (manual mining, in memory), deploys the bench token, runs the workload on
// 8 connections, stops the server and prints the functions with the most self time. The .cpuprofile it names opens in
// Chrome DevTools or speedscope as a flame graph.
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { addressStream, balanceOfData, deployToken, dev, SINK, transferData } from './chain.ts'
import { openConnection, rpc, rpcBody, runLoad } from './http.ts'
import { freePort, ROOT, sleep } from './servers.ts'

type Profile = { nodes: { callFrame: { functionName: string; url: string; lineNumber: number }; hitCount: number }[] }

const workload = process.argv[2] ?? 'erc20'
const seconds = Number(process.argv[3] ?? 5)
const dir = mkdtempSync(path.join(os.tmpdir(), 'flashchain-profile-'))
const port = await freePort()
const server = spawn(
  process.execPath,
  [
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
    `${ROOT}bin/flashchain.js`,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--ephemeral',
    '--quiet',
    '--mining',
    'manual',
  ],
  { stdio: 'inherit' },
)
for (let attempt = 0; ; attempt++) {
  try {
    await rpc(openConnection(port), 'eth_chainId')
    break
  } catch (error) {
    if (attempt === 500) throw error
    await sleep(10)
  }
}

const token = await deployToken(openConnection(port), 'manual')
const next = addressStream(0x9f0f)
let counter = 0
const bodies: Record<string, () => string> = {
  erc20: () => rpcBody('eth_estimateGas', [{ from: dev.address, to: token, data: transferData(next(), BigInt(++counter)) }, 'latest']),
  call: () => rpcBody('eth_call', [{ to: token, data: balanceOfData(next()) }, 'latest']),
  transfer: () => rpcBody('eth_estimateGas', [{ from: dev.address, to: SINK, value: `0x${(++counter).toString(16)}` }, 'latest']),
  code: () => rpcBody('eth_getCode', [token, 'latest']),
}
const body = bodies[workload]
if (body === undefined) throw new Error(`unknown workload ${workload}; one of ${Object.keys(bodies).join(', ')}`)
const result = await runLoad({ port, connections: 8, warmupSeconds: 1, seconds, next: body })
console.log(`${workload}: ${(result.ok / result.elapsed).toFixed(0)} req/s, ${result.errors} errors ${result.firstError ?? ''}`)

server.kill('SIGINT')
await new Promise((resolve) => server.once('exit', resolve))
const file = path.join(dir, readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))!)
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const self = new Map<string, number>()
let total = 0
for (const { callFrame, hitCount } of profile.nodes) {
  const where = callFrame.url
    .replace(/^.*node_modules\//, '')
    .replace(ROOT, '')
    .replace(/^file:\/\//, '')
  const key = `${callFrame.functionName || '(anonymous)'} ${where}:${callFrame.lineNumber + 1}`
  self.set(key, (self.get(key) ?? 0) + hitCount)
  total += hitCount
}
for (const [key, hits] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${((100 * hits) / total).toFixed(1).padStart(5)}%  ${key}`)
console.log(`profile: ${file}`)
