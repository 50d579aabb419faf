/**
 * JSON-RPC over WebSocket on the HTTP port: the same answers as over HTTP, the same limits, the same wallet
 * authorization (from the upgrade request's headers), and a connection cap shared with HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { WebSocket } from 'ws'

import { createConnection, type Socket } from 'node:net'

import { startChain } from './helpers.ts'
import { connect, wsUrl } from './wsHelpers.ts'

import type { TestChain } from './helpers.ts'

let t: TestChain

beforeAll(async () => {
  // The dApps here are origins the developer trusts, so that the approve policy grants them at once.
  t = await startChain({ maxBodyBytes: 64 * 1024, allowedOrigins: ['https://dapp.example', 'https://other.example'] })
})

afterAll(async () => {
  await t?.close()
})

/** The same body over HTTP, answered as the server answers it there. */
async function overHttp(body: string, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(t.url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body })
  return response.status === 204 ? undefined : response.json()
}

describe('JSON-RPC over WebSocket', () => {
  it('answers at any path, as over HTTP', async () => {
    for (const path of ['', '/', '/rpc/v1?x=1']) {
      const client = await connect(wsUrl(t.url, path))
      expect(await client.request('eth_chainId')).toMatchObject({ jsonrpc: '2.0', result: '0x7a69' })
      await client.close()
    }
  })

  it('answers every kind of body exactly as HTTP does: batches, errors, unknown methods, bad params', async () => {
    const client = await connect(wsUrl(t.url))
    const bodies = [
      '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
      '[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":"two","method":"net_version"}]',
      '[{"jsonrpc":"2.0","id":3,"method":"eth_nope"},{"jsonrpc":"2.0","method":"eth_chainId"},{"jsonrpc":"2.0","id":4,"method":"eth_getBalance","params":["0x12"]}]',
      '{"jsonrpc":"2.0","id":5,"method":"eth_getCode","params":["0x0000000000000000000000000000000000000000","nope"]}',
      '[]',
      '{"jsonrpc":"1.0","id":6,"method":"eth_chainId"}',
      '{"id":7',
      '42',
    ]
    for (const body of bodies) {
      client.send(body)
      expect(await client.next()).toEqual(await overHttp(body))
    }
    await client.close()
  })

  it('sends nothing for a body of notifications only', async () => {
    const client = await connect(wsUrl(t.url))
    client.send('[{"jsonrpc":"2.0","method":"eth_chainId"},{"jsonrpc":"2.0","method":"eth_blockNumber"}]')
    client.send('{"jsonrpc":"2.0","method":"eth_chainId"}')
    expect(await client.request('net_version')).toMatchObject({ result: '31337' })
    await expect(client.next(() => true, 100)).rejects.toThrow('no matching message')
    await client.close()
  })

  it('answers requests sent together, each by its id', async () => {
    const client = await connect(wsUrl(t.url))
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => client.request(i % 2 === 0 ? 'eth_chainId' : 'net_version')))
    answers.forEach((answer, i) => {
      expect(answer.result).toBe(i % 2 === 0 ? '0x7a69' : '31337')
    })
    await client.close()
  })

  it('closes with 1009 on a message over --max-body-bytes; one at the limit is answered', async () => {
    const client = await connect(wsUrl(t.url))
    const padding = (bytes: number) => ' '.repeat(bytes)
    const atLimit = `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`
    client.send(atLimit + padding(64 * 1024 - atLimit.length))
    expect(await client.next()).toMatchObject({ id: 1, result: '0x7a69' })
    client.send(atLimit + padding(64 * 1024 - atLimit.length + 1))
    expect((await client.closed).code).toBe(1009)
  })
})

describe('wallet authorization over WebSocket', () => {
  it('a connection without Origin acts as the owner; with one, it is a dApp that must be authorized', async () => {
    const owner = await connect(wsUrl(t.url))
    const dapp = await connect(wsUrl(t.url), { Origin: 'https://dapp.example' })
    const accounts = t.accounts.map((account) => account.address.toLowerCase())

    expect(((await owner.rpc<string[]>('eth_accounts')) ?? []).map((a) => a.toLowerCase())).toEqual(accounts)
    expect(await dapp.rpc('eth_accounts')).toEqual([])
    // Admin methods are the owner's only, exactly as over HTTP with the same Origin.
    const adminError = await dapp.request('flashchain_getPendingApprovals')
    expect(adminError.error).toEqual(
      (
        (await overHttp('{"jsonrpc":"2.0","id":1,"method":"flashchain_getPendingApprovals"}', { Origin: 'https://dapp.example' })) as {
          error: unknown
        }
      ).error,
    )
    expect(adminError.error?.code).toBe(4100)
    expect(await owner.rpc('flashchain_getPendingApprovals')).toEqual([])

    // eth_requestAccounts authorizes the origin (approval policy: approve); the same connection then sees the accounts.
    expect(((await dapp.rpc<string[]>('eth_requestAccounts')) ?? []).map((a) => a.toLowerCase())).toEqual(accounts)
    expect(((await dapp.rpc<string[]>('eth_accounts')) ?? []).map((a) => a.toLowerCase())).toEqual(accounts)
    // Another origin is still unauthorized.
    const other = await connect(wsUrl(t.url), { Origin: 'https://other.example' })
    expect(await other.rpc('eth_accounts')).toEqual([])
    await Promise.all([owner.close(), dapp.close(), other.close()])
  })
})

describe('connection cap', () => {
  /** One HTTP request on a new connection of its own; the raw response text. */
  function rawRequest(url: string): Promise<string> {
    const { hostname, port } = new URL(url)
    const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}'
    return new Promise((resolve, reject) => {
      const socket = createConnection({ host: hostname, port: Number(port) }, () =>
        socket.write(`POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`),
      )
      let text = ''
      socket.on('data', (chunk) => {
        text += chunk.toString()
        if (text.includes('\r\n\r\n{') && text.endsWith('}')) {
          socket.destroy()
          resolve(text)
        }
      })
      socket.on('error', reject)
    })
  }

  it('refuses connections over --max-connections, HTTP and WebSocket counted together, with 503', async () => {
    const capped = await startChain({ maxConnections: 3 })
    try {
      // Two WebSocket connections and one idle HTTP one fill the cap.
      const clients = await Promise.all([0, 1].map(() => connect(wsUrl(capped.url))))
      const { hostname, port } = new URL(capped.url)
      const idle = await new Promise<Socket>((resolve) => {
        const socket = createConnection({ host: hostname, port: Number(port) }, () => resolve(socket))
      })
      // Let the server see the idle socket before the next connection arrives.
      await new Promise((resolve) => setTimeout(resolve, 50))

      const refused = await rawRequest(capped.url)
      expect(refused).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/)
      expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32005, message: 'too many connections' },
      })

      const refusedWs = new WebSocket(wsUrl(capped.url))
      const status = await new Promise<number | undefined>((resolve) => {
        refusedWs.once('unexpected-response', (_request, response) => resolve(response.statusCode))
        refusedWs.once('open', () => resolve(undefined))
        refusedWs.once('error', () => {})
      })
      refusedWs.terminate()
      expect(status).toBe(503)

      // Closing one frees a place, for either protocol.
      idle.destroy()
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(await rawRequest(capped.url)).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
      await clients.pop()!.close()
      await new Promise((resolve) => setTimeout(resolve, 50))
      const again = await connect(wsUrl(capped.url))
      expect(await again.rpc('eth_chainId')).toBe('0x7a69')
      await Promise.all([...clients, again].map((client) => client.close()))
    } finally {
      await capped.close()
    }
  })
})

describe('output budget', () => {
  it('an answer larger than the budget reaches a client that reads, and its subscriptions go on', async () => {
    const small = await startChain({ maxOutputBytes: 1024 * 1024 })
    try {
      // Runtime code that returns 2 MiB of zeros: its eth_call answers 4 MiB of hex, four times the budget.
      const large = `0x${'43'.repeat(20)}`
      await small.rpc('anvil_setCode', [large, '0x622000005ff3'])
      const client = await connect(wsUrl(small.url))
      const subscription = await client.subscribe(['newFlashblocks'])
      // Three such calls in one batch: 12 MiB, more than the sockets' buffers take while the client pauses.
      const call = { jsonrpc: '2.0', method: 'eth_call', params: [{ to: large, gas: '0xf00000' }, 'latest'] }
      client.send([0, 1, 2].map((id) => ({ ...call, id: `large-${id}` })))
      const answer = client.next<{ result: string }[]>(Array.isArray, 20_000)
      // The client reads nothing for a while, as a busy one might: a notification is sent while the answer waits.
      client.ws.pause()
      await new Promise((resolve) => setTimeout(resolve, 300))
      await small.rpc('eth_sendTransaction', [{ from: small.accounts[0]!.address, to: small.accounts[1]!.address, value: '0x1' }])
      await small.preconfirm()
      client.ws.resume()
      expect((await answer).map(({ result }) => result.length)).toEqual(Array(3).fill(2 + 4 * 1024 * 1024))
      expect(await client.notification(subscription)).toHaveProperty('transactions')
      expect(await client.rpc('eth_chainId')).toBe('0x7a69')
      await client.close()
    } finally {
      await small.close()
    }
  })
})
