/**
 * A replica's download of its sequencer's store is checked whole before it is opened: a fresh file has no pid file,
 * so its first open would not run SQLite's quick_check (chain/storage/database.ts). A download damaged on the way is
 * fetched again, as one that failed; the replica then answers as its sequencer does.
 */
import { createServer } from 'node:http'

import { afterAll, expect, test } from 'vitest'

import { createReplica } from '../../src/follow/replica.ts'
import { startChain } from './helpers.ts'

import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Replica } from '../../src/follow/replica.ts'
import type { TestChain } from './helpers.ts'

let sequencer: TestChain | undefined
let proxy: Server | undefined
let replica: Replica | undefined

afterAll(async () => {
  await replica?.close()
  await new Promise((resolve) => (proxy === undefined ? resolve(undefined) : proxy.close(resolve)))
  await sequencer?.close()
})

/** Forwards every request to `target`, and writes garbage over the second half of the first snapshot it passes. */
async function damagingProxy(target: string): Promise<{ url: string; damaged: () => number }> {
  let damaged = 0
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const answer = await fetch(new URL(request.url ?? '/', target), {
      method: request.method,
      headers: { 'content-type': request.headers['content-type'] ?? 'application/json', authorization: request.headers.authorization ?? '' },
      body: request.method === 'GET' ? undefined : Buffer.concat(chunks),
    })
    const body = Buffer.from(await answer.arrayBuffer())
    if (request.url?.endsWith('/snapshot') && answer.status === 200 && damaged++ === 0) {
      // The second half of the file: some of a store's pages hold only a value, which quick_check does not read.
      body.fill(0xa5, Math.floor(body.length / 2 / 4096) * 4096)
    }
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' })
    response.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  proxy = server
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, damaged: () => damaged }
}

test("a snapshot damaged on the way is refused by SQLite's quick_check and downloaded again", async () => {
  sequencer = await startChain()
  // Enough blocks for a file of a few dozen pages.
  await sequencer.rpc('anvil_mine', ['0x40'])
  const { url, damaged } = await damagingProxy(sequencer.url)
  const lines: string[] = []
  replica = await createReplica({
    source: sequencer.url.replace('http', 'ws'),
    rpc: url,
    host: '127.0.0.1',
    port: 0,
    log: (line) => lines.push(line),
  })
  expect(damaged()).toBe(2)
  expect(lines.join('\n')).toMatch(/follow: cannot load the sequencer's state, trying again in \d+ ms: .*is damaged \(SQLite/)
  const head = async (at: string) =>
    (await (await fetch(at, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }) })).json()) as {
      result: string
    }
  expect((await head(replica.url)).result).toBe((await head(sequencer.url)).result)
})
