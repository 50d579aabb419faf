/**
 * eth_subscribe's flashchain_pendingApprovals: the wallet's waiting prompts, as flashchain_getPendingApprovals lists
 * them, first as they are and then at each change. It is the owner's, so another origin gets 4100 and nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { DAPP, pendingApprovals, startWallet } from './walletHelpers.ts'
import { connect, wsUrl } from './wsHelpers.ts'

import type { RpcResponse, TestChain } from './helpers.ts'
import type { PendingApproval } from './walletHelpers.ts'
import type { Notification, WsClient } from './wsHelpers.ts'

let t: TestChain
const clients: WsClient[] = []

beforeAll(async () => {
  t = await startWallet({ approval: 'manual' })
})

// A failed test must not leave its prompt waiting for the next one.
afterEach(async () => {
  for (const approval of await t.rpc<PendingApproval[]>('flashchain_getPendingApprovals')) {
    await t.send('flashchain_resolveApproval', [approval.id, 'reject'])
  }
})

afterAll(async () => {
  for (const client of clients) await client.close()
  await t?.close()
})

async function open(headers: Record<string, string> = {}): Promise<WsClient> {
  const client = await connect(wsUrl(t.url), headers)
  clients.push(client)
  return client
}

/** A personal_sign that waits for the user (the policy is manual), sent without waiting for its answer. */
const askToSign = (): Promise<RpcResponse> => t.send('personal_sign', ['0x68656c6c6f', t.accounts[0]!.address])

describe('flashchain_pendingApprovals', () => {
  it('the owner gets the list after the answer, then again when a prompt joins and when it is resolved', async () => {
    const owner = await open()
    owner.send({ jsonrpc: '2.0', id: 'approvals', method: 'eth_subscribe', params: ['flashchain_pendingApprovals'] })
    // The answer first, so the client knows the id the list comes under.
    const answer = await owner.next<RpcResponse & { id: string }>()
    expect(answer.id).toBe('approvals')
    const subscription = answer.result as string
    expect(subscription).toMatch(/^0x[0-9a-f]{32}$/)
    expect(await owner.next<Notification>()).toEqual({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription, result: [] } })

    const signing = askToSign()
    const joined = await owner.notification<PendingApproval[]>(subscription)
    expect(joined).toEqual(await t.rpc('flashchain_getPendingApprovals'))
    expect(joined).toEqual([
      {
        id: expect.any(String),
        method: 'personal_sign',
        key: 'personal_sign',
        params: ['0x68656c6c6f', t.accounts[0]!.address.toLowerCase()],
        origin: null,
        createdAt: expect.any(Number),
      },
    ])

    expect(await t.rpc('flashchain_resolveApproval', [joined[0]!.id, 'reject'])).toBe(true)
    expect(await owner.notification(subscription)).toEqual([])
    expect((await signing).error?.code).toBe(4001)

    // After eth_unsubscribe, a new prompt sends nothing.
    expect(await owner.rpc('eth_unsubscribe', [subscription])).toBe(true)
    const again = askToSign()
    const [waiting] = await pendingApprovals(t, 1)
    await expect(owner.notification(subscription, 200)).rejects.toThrow('no matching message')
    await t.rpc('flashchain_resolveApproval', [waiting!.id, 'reject'])
    expect((await again).error?.code).toBe(4001)
  })

  it('another origin gets 4100 and none of the list', async () => {
    const dapp = await open({ Origin: DAPP })
    expect(await dapp.request('eth_subscribe', ['flashchain_pendingApprovals'])).toMatchObject({
      error: {
        code: 4100,
        message: 'The requested account and/or method has not been authorized by the user: admin methods are for the owner only',
      },
    })
    // Its public kinds are still its own.
    expect(await dapp.subscribe(['newHeads'])).toMatch(/^0x[0-9a-f]{32}$/)

    const signing = askToSign()
    const [waiting] = await pendingApprovals(t, 1)
    await expect(dapp.next((message) => JSON.stringify(message).includes('personal_sign'), 200)).rejects.toThrow('no matching message')
    await t.rpc('flashchain_resolveApproval', [waiting!.id, 'reject'])
    expect((await signing).error?.code).toBe(4001)
  })

  it('takes no options, and over HTTP is not supported', async () => {
    const owner = await open()
    expect(await owner.request('eth_subscribe', ['flashchain_pendingApprovals', {}])).toMatchObject({
      error: { code: -32602, message: 'invalid argument 1: Invalid input: expected undefined, received object' },
    })
    expect((await t.send('eth_subscribe', ['flashchain_pendingApprovals'])).error).toMatchObject({
      code: -32601,
      message: 'notifications not supported',
    })
  })
})
