/**
 * Upstreams for fork mode's tests: a seeded chain (anvil or flashchain) and a proxy in front of it that counts what
 * reaches it and plays its failures.
 */
import { createServer } from 'node:http'

import { createPublicClient, createWalletClient, defineChain, encodeFunctionData, http, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

import { createUpstreamTransport } from '../../src/chain/fork/transport.ts'
import { pinForkBlock } from '../../src/chain/fork/upstream.ts'
import { Store } from '../e2e/fixtures/contracts.ts'
import { devAccounts } from './tools.ts'

import type { AddressInfo } from 'node:net'
import type { Hex } from 'viem'
import type { ForkBlock } from '../../src/chain/fork/upstream.ts'

export type Upstream = { url: string; close(): Promise<void> }

/** What the seeding left at the fork block, and after it. */
export type Seeded = { fork: ForkBlock; store: Hex; holder: Hex; sender: Hex }

export const holder = '0x00000000000000000000000000000000000f0e1d' as Hex

/**
 * Before the fork block: 1 ether to `holder`, Store deployed with 7 in slot 0. After it: 2 more ether, Store set to
 * 42, and two empty blocks. Each transaction is mined before the next is sent, the same way on both upstreams.
 */
export async function seed(url: string): Promise<Seeded> {
  const probe = createPublicClient({ transport: http(url, { retryCount: 0 }) })
  const chain = defineChain({
    id: await probe.getChainId(),
    name: 'upstream',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  })
  const transport = http(url, { retryCount: 0 })
  const client = createPublicClient({ chain, transport, pollingInterval: 25 })
  const account = privateKeyToAccount(devAccounts[0]!.privateKey as Hex)
  const wallet = createWalletClient({ chain, transport, account })
  const mined = async (hash: Hex) => {
    await client.request({ method: 'evm_mine' } as never)
    return client.waitForTransactionReceipt({ hash })
  }
  await mined(await wallet.sendTransaction({ to: holder, value: parseEther('1') }))
  const deployed = await mined(await wallet.deployContract({ abi: Store.abi, bytecode: Store.bytecode, args: [7n] }))
  const store = deployed.contractAddress!.toLowerCase() as Hex
  const fork = await pinForkBlock(createUpstreamTransport({ url }), await client.getBlockNumber({ cacheTime: 0 }))
  await mined(await wallet.sendTransaction({ to: holder, value: parseEther('2') }))
  await mined(await wallet.sendTransaction({ to: store, data: encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [42n] }) }))
  await client.request({ method: 'evm_mine' } as never)
  return { fork, store, holder, sender: account.address.toLowerCase() as Hex }
}

export type Behaviour = 'forward' | 'unavailable' | 'garbage' | 'badHex' | 'stall' | 'noBatches' | 'noBlockHash' | 'noTraces' | 'noTracer'

export type CountingProxy = {
  url: string
  /** The body of every request it received, in order. */
  requests: unknown[]
  /** The JSON-RPC calls in them. */
  calls(): number
  close(): Promise<void>
}

/** A proxy on loopback in front of `target`: it counts, and behaves as `behaviour` says for the nth request (from 0). */
export async function startProxy(target: string, behaviour: (index: number, body: unknown) => Behaviour = () => 'forward'): Promise<CountingProxy> {
  const requests: unknown[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', async () => {
      const text = Buffer.concat(chunks).toString()
      const answer = (status: number, payload: string) => response.writeHead(status, { 'content-type': 'application/json' }).end(payload)
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        // Kept, so that a test that counts requests sees it; answered as a server would, not thrown in the runner.
        requests.push({ notJson: text, method: request.method, url: request.url })
        return answer(400, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }))
      }
      const index = requests.push(body) - 1
      switch (behaviour(index, body)) {
        case 'stall':
          return
        case 'unavailable':
          return answer(503, 'busy')
        case 'garbage':
          return answer(200, '<html>oops</html>')
        case 'badHex': {
          const wrong = (call: { id: unknown }) => ({ jsonrpc: '2.0', id: call.id, result: '0xzz' })
          return answer(200, JSON.stringify(Array.isArray(body) ? body.map(wrong) : wrong(body as { id: unknown })))
        }
        case 'noTraces':
        case 'noTracer': {
          // As a provider without the debug namespace (each debug_ call an unknown method), or without the tracer
          // asked for (invalid params).
          type Call = { id: unknown; method: string }
          const calls = (Array.isArray(body) ? body : [body]) as Call[]
          if (calls.some((call) => call.method.startsWith('debug_'))) {
            const refusal =
              behaviour(index, body) === 'noTraces'
                ? { code: -32601, message: 'the method debug_traceCall does not exist/is not available' }
                : { code: -32602, message: 'invalid argument 2: unknown tracer' }
            const refused = calls.map((call) => ({ jsonrpc: '2.0', id: call.id, error: refusal }))
            return answer(200, JSON.stringify(Array.isArray(body) ? refused : refused[0]))
          }
          break
        }
        case 'noBatches':
          if (Array.isArray(body)) {
            return answer(200, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batches are not supported' } }))
          }
          break
        case 'noBlockHash': {
          // As a node from before EIP-1898: a block named by an object is refused, call by call; the rest is forwarded.
          type Call = { id: unknown; params?: unknown[] }
          const one = async (call: Call) => {
            if (call.params?.some((param) => typeof param === 'object' && param !== null && 'blockHash' in param)) {
              const message = 'invalid argument 1: json: cannot unmarshal object into Go value of type string'
              return { jsonrpc: '2.0', id: call.id, error: { code: -32602, message } }
            }
            const forwarded = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call) })
            return forwarded.json()
          }
          const answers = Array.isArray(body) ? await Promise.all((body as Call[]).map(one)) : await one(body as Call)
          return answer(200, JSON.stringify(answers))
        }
      }
      const forwarded = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })
      answer(forwarded.status, await forwarded.text())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    calls: () => requests.reduce<number>((total, body) => total + (Array.isArray(body) ? body.length : 1), 0),
    close() {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
