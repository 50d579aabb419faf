// Which browser origins the wallet trusts. Any web page the developer opens can call the node (CORS admits every
// origin), so under the default approve policy only pages served from this machine, or origins named with
// --allowed-origins, are granted accounts at once; any other origin's request waits for a click, as under manual.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { startChain } from './helpers.ts'
import { pollUntil, sendWith } from './walletHelpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

type PendingApproval = { id: string; method: string; origin: string | null }

let t: TestChain

beforeAll(async () => {
  // Long enough for a loaded machine to see a request listed and approve it before it times out.
  t = await startChain({ approvalTimeout: 2_000 } as never)
})

afterEach(async () => {
  for (const approval of await t.rpc<PendingApproval[]>('flashchain_getPendingApprovals', []))
    await t.send('flashchain_resolveApproval', [approval.id, 'reject'])
})

afterAll(async () => {
  await t?.close()
})

const requestAccounts = (origin: string) => sendWith(t.url, { Origin: origin }, 'eth_requestAccounts', [])
/** The pending approvals, once a request sent before has reached the list. */
const listed = () =>
  pollUntil(
    () => t.rpc<PendingApproval[]>('flashchain_getPendingApprovals', []),
    (list) => list.length > 0,
  )

describe('under the approve policy', () => {
  it.each(['http://localhost:5173', 'https://localhost', 'http://127.0.0.1:3000', 'http://[::1]:8080', 'http://app.localhost:3000'])(
    'a page served from this machine (%s) is granted at once',
    async (origin) => {
      const answer = await requestAccounts(origin)
      expect((answer.result as Hex[]).length).toBe(t.accounts.length)
    },
  )

  it('another origin waits in the approval queue, and gets 4001 when nobody approves', async () => {
    const answer = requestAccounts('https://evil.example')
    const pending = await listed()
    expect(pending).toMatchObject([{ method: 'eth_requestAccounts', origin: 'https://evil.example' }])
    expect((await answer).error?.code).toBe(4001)
    expect((await sendWith(t.url, { Origin: 'https://evil.example' }, 'eth_accounts', [])).result).toEqual([])
  })

  it('another origin is granted once the owner approves it', async () => {
    const answer = requestAccounts('https://preview.example')
    const pending = await listed()
    expect(await t.rpc('flashchain_resolveApproval', [pending[0]!.id, 'approve'])).toBe(true)
    expect(((await answer).result as Hex[]).length).toBe(t.accounts.length)
  })

  it('a reject policy still rejects a trusted origin', async () => {
    await t.rpc('flashchain_setApprovalPolicy', [{ default: 'approve', methods: { eth_requestAccounts: 'reject' } }])
    try {
      expect((await requestAccounts('http://localhost:4000')).error?.code).toBe(4001)
    } finally {
      await t.rpc('flashchain_setApprovalPolicy', [{ default: 'approve' }])
    }
  })
})

describe('--allowed-origins', () => {
  it('trusts the origins named, and * trusts any', async () => {
    for (const [allowed, origin] of [
      [['https://app.example'], 'https://app.example'],
      [['*'], 'https://anything.example'],
    ] as const) {
      const chain = await startChain({ allowedOrigins: [...allowed], approvalTimeout: 400 } as never)
      try {
        const answer = await sendWith(chain.url, { Origin: origin }, 'eth_requestAccounts', [])
        expect((answer.result as Hex[]).length).toBe(chain.accounts.length)
        if (allowed[0] !== '*')
          expect((await sendWith(chain.url, { Origin: 'https://other.example' }, 'eth_requestAccounts', [])).error?.code).toBe(4001)
      } finally {
        await chain.close()
      }
    }
  })
})
