/**
 * Subscriptions are capped per connection and across connections: the one past a cap is answered -32005, the
 * others go on, and while transactions flow a client at the cap does not hold up another's requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startChain } from '../e2e/helpers.ts'
import { pollUntil } from '../e2e/walletHelpers.ts'
import { connect, wsUrl } from '../e2e/wsHelpers.ts'
import { lateAnswers, startProbe } from '../support/probe.ts'

import type { TestChain } from '../e2e/helpers.ts'
import type { WsClient } from '../e2e/wsHelpers.ts'

/** Runtime code that logs its first 32 bytes of memory: every call to it leaves one log. */
const EMITTER = `0x${'42'.repeat(20)}`
/** Transactions sent while the caps are full, about 100 a second. */
const TRANSACTIONS = 500

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
    // The node frees the places once it has seen the connection go, which may come after the client saw it close: a
    // subscription taken and given back again says when.
    await pollUntil(
      async () => {
        const { result } = await third.request('eth_subscribe', ['newHeads'])
        if (typeof result === 'string') await third.rpc('eth_unsubscribe', [result])
        return typeof result === 'string'
      },
      (freed) => freed,
    )
    expect((await subscribeMany(third, 50)).every((answer) => typeof answer.result === 'string')).toBe(true)
  })

  it('at the caps, with transactions flowing, another client is answered all along', async () => {
    // Fill both caps again: connections at 100 subscriptions each, up to the node's 250.
    const full = [await open(), await open(), await open()]
    for (const client of full) await subscribeMany(client, 100)
    const accounts = await t.rpc<string[]>('eth_accounts')
    // Another client asks throughout, each answer placed by the transactions answered.
    let sent = 0
    const probe = startProbe(t, () => sent, 50)
    const started = performance.now()
    for (; sent < TRANSACTIONS; sent++) {
      const wait = started + sent * 10 - performance.now()
      if (wait > 0) await sleep(wait)
      await t.rpc('eth_sendTransaction', [{ from: accounts[sent % accounts.length], to: EMITTER }])
    }
    const answers = await probe.stop()
    // Each subscription got its logs meanwhile: the connections were kept busy.
    const notification = await full[0]!.next((message) => (message as { method?: string }).method === 'eth_subscription')
    expect(notification).toMatchObject({ params: { result: { address: EMITTER } } })
    // Each probe was answered before the sender had ten more transactions answered (one, on a quiet machine and a
    // busy one alike: it is on the wire before the next of them). A node that held others behind the notifications
    // of 250 subscriptions would answer the sender's requests and leave the probe's waiting.
    expect(answers.length).toBeGreaterThan(0)
    expect(lateAnswers(answers, 10)).toEqual([])
  })
})
