/**
 * What a callTracer trace of an ERC20 transfer costs, against the same transfer run without a tracer, in one run:
 *
 *   node bench/trace.ts [iterations = 300]
 *
 * One flashchain in this process (manual mining, no execution workers, so both run on the same thread), BenchToken
 * deployed from dev account 0. Each iteration sends `transfer(to, amount)` with a new recipient and amount, so no
 * answer cache can serve it, first as eth_call, then as debug_traceCall with callTracer, then as debug_traceCall with
 * the struct logger; the median and p90 of each are printed, and the callTracer's ratio to eth_call.
 */
import { readFileSync } from 'node:fs'

import { encodeDeployData, encodeFunctionData, getContractAddress } from 'viem'

import { createFlashchain } from '../src/index.ts'

import type { Abi, Hex } from 'viem'

const token = JSON.parse(readFileSync(new URL('./contracts/BenchToken.json', import.meta.url), 'utf8')) as { abi: Abi; bytecode: Hex }
const iterations = Number(process.argv[2] ?? 300)

const flashchain = await createFlashchain({ host: '127.0.0.1', port: 0, mining: 'manual', workers: 0 })
let id = 0
async function rpc<T>(method: string, params: unknown[]): Promise<T> {
  const response = await fetch(flashchain.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
  })
  const body = (await response.json()) as { result?: T; error?: { message: string } }
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`)
  return body.result as T
}

try {
  const from = flashchain.chain.spec.accounts[0]!.address.toLowerCase() as Hex
  await rpc('eth_sendTransaction', [{ from, data: encodeDeployData({ abi: token.abi, bytecode: token.bytecode, args: [10n ** 30n] }) }])
  await rpc('evm_mine', [])
  const address = getContractAddress({ from, nonce: 0n })

  const times: Record<string, number[]> = { eth_call: [], 'debug_traceCall callTracer': [], 'debug_traceCall struct logger': [] }
  for (let i = 0; i < iterations; i++) {
    const to = `0x${(0x1000 + i).toString(16).padStart(40, '0')}`
    const data = encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [to, BigInt(i + 1)] })
    const call = { from, to: address, data }
    for (const [name, method, params] of [
      ['eth_call', 'eth_call', [call, 'latest']],
      ['debug_traceCall callTracer', 'debug_traceCall', [call, 'latest', { tracer: 'callTracer' }]],
      ['debug_traceCall struct logger', 'debug_traceCall', [call, 'latest', {}]],
    ] as const) {
      const started = performance.now()
      await rpc(method, params as unknown as unknown[])
      if (i >= 20) times[name]!.push(performance.now() - started)
    }
  }
  const stats = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b)
    return { median: sorted[Math.floor(sorted.length / 2)]!, p90: sorted[Math.floor(sorted.length * 0.9)]! }
  }
  for (const [name, values] of Object.entries(times)) {
    const { median, p90 } = stats(values)
    console.log(`${name.padEnd(32)} median ${median.toFixed(3)} ms   p90 ${p90.toFixed(3)} ms`)
  }
  console.log(`callTracer / eth_call (median): ${(stats(times['debug_traceCall callTracer']!).median / stats(times.eth_call!).median).toFixed(2)}x`)
} finally {
  await flashchain.close()
}
