/**
 * The admin methods the console page reads the wallet with: the approval policy, the latest batches with their
 * status, and the origins' grants, which the owner can revoke. Each is the owner's only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { Reverter, Store } from './fixtures/contracts.ts'
import { DAPP, OTHER_DAPP, batch, deployAll, originClient, revertingCall, sendCalls, setPolicy, startWallet, storeSet } from './walletHelpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

type BatchSummary = {
  id: string
  from: string
  chainId: string
  atomic: boolean
  status: number
  calls: { to: string; value: string; data: string }[]
  transactions: string[]
  createdAt: number
}
type Grant = { origin: string; accounts: string[]; grantedAt: number }

let t: TestChain
let store: Hex
let reverter: Hex

beforeAll(async () => {
  t = await startWallet()
  ;[store, reverter] = await deployAll(t, [{ contract: Store, args: [0n] }, { contract: Reverter }])
})

afterAll(async () => {
  await t?.close()
})

describe('flashchain_getApprovalPolicy', () => {
  it('answers the policy as last set, per key', async () => {
    expect(await t.rpc('flashchain_getApprovalPolicy', [])).toEqual({ default: 'approve', methods: {} })
    await setPolicy(t, { default: 'manual', methods: { wallet_watchAsset: 'reject', upgrade: 'approve' } })
    try {
      expect(await t.rpc('flashchain_getApprovalPolicy', [])).toEqual({
        default: 'manual',
        methods: { wallet_watchAsset: 'reject', upgrade: 'approve' },
      })
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
  })
})

describe('flashchain_getBatches', () => {
  it('lists the latest batches of every account, newest first, with their calls and status codes', async () => {
    const from = [t.accounts[1]!.address, t.accounts[2]!.address]
    const first = await sendCalls(t, batch(from[0]!, [storeSet(store, 5n), { to: from[1]!, value: '0x64' }], { atomicRequired: false }))
    const second = await sendCalls(t, batch(from[1]!, [revertingCall(reverter)]))
    await t.mine()

    const listed = await t.rpc<BatchSummary[]>('flashchain_getBatches', [{ limit: 2 }])
    expect(listed.map((entry) => entry.id)).toEqual([second.id, first.id])
    const [atomic, plain] = listed
    expect(plain).toMatchObject({ from: from[0]!.toLowerCase(), chainId: '0x7a69', atomic: false, status: 200 })
    expect(plain!.calls).toEqual([
      { to: store.toLowerCase(), value: '0x0', data: storeSet(store, 5n).data },
      { to: from[1]!.toLowerCase(), value: '0x64', data: '0x' },
    ])
    expect(plain!.transactions).toHaveLength(2)
    expect(atomic).toMatchObject({ from: from[1]!.toLowerCase(), atomic: true, status: 500 })
    expect(atomic!.transactions).toHaveLength(1)
    expect(atomic!.createdAt).toBeGreaterThanOrEqual(plain!.createdAt)

    expect(await t.rpc<BatchSummary[]>('flashchain_getBatches', [{ limit: 1 }])).toHaveLength(1)
    expect((await t.rpc<BatchSummary[]>('flashchain_getBatches', [])).length).toBeGreaterThanOrEqual(2)
  })

  it('refuses a limit that is not a positive integer up to 1000', async () => {
    for (const limit of [0, 1001, 1.5, '0x1']) {
      expect((await t.rpcError('flashchain_getBatches', [{ limit }])).code).toBe(-32602)
    }
    expect((await t.rpcError('flashchain_getBatches', [{ count: 1 }])).code).toBe(-32602)
  })
})

describe('flashchain_getGrants and flashchain_revokeGrant', () => {
  it('lists each origin the user granted, and revoking one takes its accounts away', async () => {
    expect(await t.rpc('flashchain_getGrants', [])).toEqual([])
    await originClient(t, DAPP).rpc('eth_requestAccounts', [])
    await originClient(t, OTHER_DAPP).rpc('eth_requestAccounts', [])

    const grants = await t.rpc<Grant[]>('flashchain_getGrants', [])
    expect(grants.map((grant) => grant.origin)).toEqual([DAPP, OTHER_DAPP])
    expect(grants[0]!.accounts.map((account) => account.toLowerCase()).sort()).toEqual(
      t.accounts.map((account) => account.address.toLowerCase()).sort(),
    )

    expect(await t.rpc('flashchain_revokeGrant', [DAPP])).toBe(true)
    expect(await t.rpc('flashchain_revokeGrant', [DAPP])).toBe(false)
    expect((await t.rpc<Grant[]>('flashchain_getGrants', [])).map((grant) => grant.origin)).toEqual([OTHER_DAPP])
    expect(await originClient(t, DAPP).rpc('eth_accounts', [])).toEqual([])
    expect(await originClient(t, OTHER_DAPP).rpc<string[]>('eth_accounts', [])).toHaveLength(t.accounts.length)
  })
})

describe('who may call them', () => {
  it.each([
    ['flashchain_getApprovalPolicy', []],
    ['flashchain_getBatches', []],
    ['flashchain_getGrants', []],
    ['flashchain_revokeGrant', [OTHER_DAPP]],
  ])('%s: 4100 from a browser origin, even one with a grant', async (method, params) => {
    const response = await originClient(t, OTHER_DAPP).send(method, params)
    expect(response.error?.code).toBe(4100)
  })
})
