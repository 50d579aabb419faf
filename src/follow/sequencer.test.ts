/**
 * What a replica asks its sequencer, against small HTTP servers on 127.0.0.1 that answer as a sequencer may: a
 * snapshot refused (HTTP 4xx, a setting to fix) is told apart from one that failed (to try again); a flashblock no
 * longer kept is undefined; a forwarded request to a sequencer that cannot be reached is -32603, with its id.
 */
import { createServer } from 'node:http'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, describe, expect, test } from 'vitest'

import { createForwarding } from './forward.ts'
import { SnapshotRefusedError, sequencerAt } from './sequencer.ts'

import type { IncomingMessage, Server, ServerResponse } from 'node:http'

const servers: Server[] = []
const dirs: string[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A server that answers every request with `answer`; its URL. */
async function serve(answer: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer(answer)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`
}

const file = () => {
  const dir = mkdtempSync(join(tmpdir(), 'flashchain-sequencer-test-'))
  dirs.push(dir)
  return join(dir, 'chain.sqlite')
}

describe('sequencerAt', () => {
  test('a snapshot is written to the file; refused (4xx) is a SnapshotRefusedError, failed (5xx) another error', async () => {
    const seen: (string | undefined)[] = []
    const url = await serve((request, response) => {
      seen.push(request.headers.authorization)
      if (request.url === '/seq/snapshot') return void response.end('the chain')
      response.statusCode = request.url === '/refused/snapshot' ? 403 : 503
      response.end('{"error":"admin methods are for the owner only"}')
    })
    const target = file()
    await sequencerAt(`${url}/seq`, 'secret').snapshot(target)
    expect(readFileSync(target, 'utf8')).toBe('the chain')
    expect(seen).toEqual(['Bearer secret'])

    const refused = sequencerAt(`${url}/refused/`, undefined).snapshot(file())
    await expect(refused).rejects.toBeInstanceOf(SnapshotRefusedError)
    await expect(refused).rejects.toThrow(/HTTP 403.*owner only/)
    const failed = sequencerAt(`${url}/failing`, undefined).snapshot(file())
    await expect(failed).rejects.toThrow(/HTTP 503/)
    await expect(failed).rejects.not.toBeInstanceOf(SnapshotRefusedError)
  })

  test('a flashblock no longer kept (-32001) is undefined; another error is thrown', async () => {
    let code = -32001
    const url = await serve((_request, response) => response.end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code, message: 'not kept' } })))
    expect(await sequencerAt(url, undefined).frames(5n, 0)).toBeUndefined()
    code = -32603
    await expect(sequencerAt(url, undefined).frames(5n, 0)).rejects.toThrow(/flashchain_getFlashblocks: not kept/)
  })
})

describe('createForwarding', () => {
  test('a sequencer that cannot be reached is -32603 with the request’s id, and nothing is taken as sent', async () => {
    // A port that was just free: nothing listens on it.
    const url = await serve(() => {})
    await new Promise((resolve) => servers.pop()!.close(resolve))
    const sent: string[] = []
    const forwarding = createForwarding(url, (raw) => sent.push(raw))
    const answer = await forwarding.send(
      { jsonrpc: '2.0', id: 7, method: 'eth_sendRawTransaction', params: ['0x02'] },
      { origin: undefined, authorization: undefined },
    )
    expect(answer).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32603, message: expect.stringMatching(/^the sequencer did not answer: /) },
    })
    expect(sent).toEqual([])
  })

  test('the sequencer’s answer is the answer, with the caller’s headers; an accepted raw transaction is told', async () => {
    const headers: Record<string, unknown>[] = []
    const url = await serve((request, response) => {
      headers.push({ origin: request.headers.origin, authorization: request.headers.authorization })
      response.end(JSON.stringify({ jsonrpc: '2.0', id: 3, result: '0xabc' }))
    })
    const sent: string[] = []
    const forwarding = createForwarding(url, (raw) => sent.push(raw))
    const caller = { origin: 'https://dapp.example', authorization: 'Bearer t' }
    expect(await forwarding.send({ jsonrpc: '2.0', id: 3, method: 'eth_sendRawTransaction', params: ['0x02'] }, caller)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: '0xabc',
    })
    expect(headers).toEqual([caller])
    expect(sent).toEqual(['0x02'])
  })
})
