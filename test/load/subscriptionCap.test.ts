/**
 * Subscriptions are capped per connection and across connections: the one past a cap is answered -32005, the
 * others go on, and while transactions flow a client at the cap does not hold up another's requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startChain } from '../e2e/helpers.ts'
import { connect, wsUrl } from '../e2e/wsHelpers.ts'

import type { TestChain } from '../e2e/helpers.ts'
import type { WsClient } from '../e2e/wsHelpers.ts'

/** Runtime code that logs its first 32 bytes of memory: every call to it leaves one log. */
const EMITTER = `0x${'42'.repeat(20)}`

let t: TestChain
const clients: WsClient[] = []

beforeAll(async () => {
  t = await startChain({ mining: 'interval', maxSubscriptions: 100, maxTotalSubscriptions: 250 })
  await t.rpc('anvil_setCode', [EMITTER, '0x60206000a000'])
})

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()))
  await t?.close()
})

async function open(): Promise<WsClient> {
  const client = await connect(wsUrl(t.url))
  clients.push(client)
  return client
}

/** Asks for `count` subscriptions at once; the answers, in order. */
function subscribeMany(client: WsClient, count: number, kind = 'pendingLogs') {
  return Promise.all(Array.from({ length: count }, () => client.request('eth_subscribe', [kind])))
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('subscription caps', () => {
  it('a connection gets -32005 past its cap, and the node past its total; unsubscribing makes room', async () => {
    const flood = await open()
    const answers = await subscribeMany(flood, 1000)
    expect(answers.filter((answer) => typeof answer.result === 'string')).toHaveLength(100)
    const refused = answers.filter((answer) => answer.error !== undefined)
    expect(refused).toHaveLength(900)
    expect(refused[0]!.error).toEqual({
      code: -32005,
      message: 'too many subscriptions on this connection (at most 100); unsubscribe from one first',
    })

    // Two more connections take the node to 250 in all.
    const second = await open()
    expect((await subscribeMany(second, 100)).every((answer) => typeof answer.result === 'string')).toBe(true)
    const third = await open()
    const thirds = await subscribeMany(third, 100)
    expect(thirds.filter((answer) => typeof answer.result === 'string')).toHaveLength(50)
    expect(thirds.at(-1)!.error).toEqual({
      code: -32005,
      message: 'too many subscriptions on this node (at most 250 across connections); try again later',
    })

    // An unsubscription, or a connection that leaves, gives its places back.
    expect(await third.rpc('eth_unsubscribe', [thirds[0]!.result])).toBe(true)
    expect(await third.rpc<string>('eth_subscribe', ['newHeads'])).toMatch(/^0x[0-9a-f]{32}$/)
    await second.close()
    await sleep(100)
    expect((await subscribeMany(third, 50)).every((answer) => typeof answer.result === 'string')).toBe(true)
  })

  it('at the caps, with transactions flowing, another client is answered promptly', async () => {
    // Fill both caps again: connections at 100 subscriptions each, up to the node's 250.
    const full = [await open(), await open(), await open()]
    for (const client of full) await subscribeMany(client, 100)
    const accounts = await t.rpc<string[]>('eth_accounts')
    let sending = true
    const sender = (async () => {
      const started = Date.now()
      for (let i = 0; sending && i < 1000; i++) {
        const wait = started + i * 10 - Date.now()
        if (wait > 0) await sleep(wait)
        await t.rpc('eth_sendTransaction', [{ from: accounts[i % accounts.length], to: EMITTER }])
      }
    })()
    const waits: number[] = []
    const until = Date.now() + 5_000
    while (Date.now() < until) {
      const asked = performance.now()
      expect(await t.rpc('eth_chainId')).toBe('0x7a69')
      waits.push(performance.now() - asked)
      await sleep(50)
    }
    sending = false
    await sender
    // Each subscription got its logs meanwhile: the connections were kept busy.
    const notification = await full[0]!.next((message) => (message as { method?: string }).method === 'eth_subscription')
    expect(notification).toMatchObject({ params: { result: { address: EMITTER } } })
    // Most within a second, and none past two: a margin for a busy machine's pauses, far from the seconds a client
    // waited before the budgets.
    const sorted = waits.toSorted((a, b) => a - b)
    expect(sorted[Math.floor(0.95 * sorted.length)]).toBeLessThan(1_000)
    expect(sorted.at(-1)).toBeLessThan(2_000)
  })
})
