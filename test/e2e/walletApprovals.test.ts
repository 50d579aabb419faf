/**
 * The wallet's approval policy end to end: manual approvals that wait, are listed by flashchain_getPendingApprovals
 * and are resolved by flashchain_resolveApproval; rejections (4001), the approval timeout, the EIP-7702 upgrade
 * prompt (5750), and per-method policies overriding the default.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { EXECUTOR_ADDRESS } from '../../src/wallet/executor.ts'
import { Store } from './fixtures/contracts.ts'
import {
  DAPP,
  MESSAGES,
  batch,
  callsStatus,
  compileToken,
  deployAll,
  isSettled,
  originClient,
  ownerClient,
  pendingApprovals,
  readStore,
  setPolicy,
  startWallet,
  storeSet,
} from './walletHelpers.ts'

import type { Hex } from 'viem'
import type { RpcResponse, TestChain } from './helpers.ts'
import type { PendingApproval, SendCallsParam, SendCallsResult, WatchedAsset } from './walletHelpers.ts'

const recipient = '0x00000000000000000000000000000000000b0b0a'

describe('manual approval (server started with approval: manual)', () => {
  let t: TestChain
  let store: Hex
  let token: Hex

  beforeAll(async () => {
    t = await startWallet({ approval: 'manual' })
    ;[store, token] = await deployAll(t, [
      { contract: Store, args: [0n] },
      { contract: compileToken(), args: ['TKN', 18] },
    ])
  })

  // A failed test must not leave its request waiting for the next one: reject whatever is still pending.
  afterEach(async () => {
    for (const approval of await t.rpc<PendingApproval[]>('flashchain_getPendingApprovals', [])) {
      await t.send('flashchain_resolveApproval', [approval.id, 'reject'])
    }
  })

  afterAll(async () => {
    await t?.close()
  })

  /** Sends wallet_sendCalls without waiting for the answer. */
  const fire = (param: SendCallsParam): Promise<RpcResponse> => t.send('wallet_sendCalls', [param])

  it('nothing is pending at first', async () => {
    expect(await t.rpc('flashchain_getPendingApprovals', [])).toEqual([])
  })

  it('a wallet_sendCalls request waits, is listed with method, params, origin and createdAt, and completes once approved', async () => {
    const param = batch(t.accounts[0]!.address, [storeSet(store, 7n), { to: recipient, value: '0x5' }], { atomicRequired: false })
    const before = Date.now()
    const answer = fire(param)
    const [approval] = await pendingApprovals(t, 1)
    const after = Date.now()

    expect(typeof approval!.id).toBe('string')
    expect(approval!.method).toBe('wallet_sendCalls')
    const params = Array.isArray(approval!.params) ? approval!.params[0] : approval!.params
    expect(params).toMatchObject({ version: '2.0.0', chainId: '0x7a69', atomicRequired: false })
    expect((params as { from: string }).from.toLowerCase()).toBe((param.from as string).toLowerCase())
    expect((params as { calls: unknown[] }).calls).toHaveLength(2)
    expect(approval!.origin).toBeNull()
    expect(typeof approval!.createdAt).toBe('number')
    expect(approval!.createdAt).toBeGreaterThanOrEqual(before - 1000)
    expect(approval!.createdAt).toBeLessThanOrEqual(after + 1000)

    // Still waiting: nothing sent yet.
    expect(await isSettled(answer)).toBe(false)
    expect(await t.rpc('eth_getTransactionCount', [param.from, 'pending'])).toBe('0x0')

    expect(await t.rpc('flashchain_resolveApproval', [approval!.id, 'approve'])).toBe(true)
    const response = await answer
    expect(response.error).toBeUndefined()
    const result = response.result as SendCallsResult
    expect(result.status).toBe('pending')
    expect(await t.rpc('flashchain_getPendingApprovals', [])).toEqual([])

    await t.mine()
    expect((await callsStatus(t, result.id)).status).toBe(200)
    expect(await readStore(t, store)).toBe(7n)
    expect(await t.rpc('eth_getBalance', [recipient, 'latest'])).toBe('0x5')
  })

  it('a rejected request gets 4001 "User rejected the request"; its approval is gone, and its id is never recorded', async () => {
    const id = `0x${'4a'.repeat(32)}`
    const answer = fire(batch(t.accounts[1]!.address, [storeSet(store, 8n)], { id, atomicRequired: false }))
    const [approval] = await pendingApprovals(t, 1)
    expect(await t.rpc('flashchain_resolveApproval', [approval!.id, 'reject'])).toBe(true)
    const response = await answer
    expect(response.error?.code).toBe(4001)
    expect(response.error?.message).toContain(MESSAGES.rejected)
    expect(await t.rpc('flashchain_getPendingApprovals', [])).toEqual([])

    // Resolved approvals are no longer known.
    expect((await t.rpcError('flashchain_resolveApproval', [approval!.id, 'approve'])).code).toBe(-32602)
    // Nothing was submitted under that id, so it is unknown and free to use.
    expect((await t.rpcError('wallet_getCallsStatus', [id])).code).toBe(5730)
    expect(await t.rpc('eth_getTransactionCount', [t.accounts[1]!.address, 'pending'])).toBe('0x0')
    expect(await readStore(t, store, 'pending')).toBe(7n)
  })

  it('two requests pending at once are resolved independently, in any order', async () => {
    const first = fire(batch(t.accounts[2]!.address, [storeSet(store, 10n)], { atomicRequired: false }))
    await pendingApprovals(t, 1)
    const second = fire(batch(t.accounts[3]!.address, [storeSet(store, 11n)], { atomicRequired: false }))
    const approvals = await pendingApprovals(t, 2)
    expect(new Set(approvals.map((approval) => approval.id)).size).toBe(2)
    const secondApproval = approvals.find((approval) => JSON.stringify(approval.params).toLowerCase().includes(t.accounts[3]!.address.toLowerCase()))!
    const firstApproval = approvals.find((approval) => approval !== secondApproval)!

    expect(await t.rpc('flashchain_resolveApproval', [secondApproval.id, 'reject'])).toBe(true)
    expect((await second).error?.code).toBe(4001)
    expect(await isSettled(first)).toBe(false)
    expect(await t.rpc('flashchain_resolveApproval', [firstApproval.id, 'approve'])).toBe(true)
    const accepted = (await first).result as SendCallsResult
    await t.mine()
    expect((await callsStatus(t, accepted.id)).status).toBe(200)
    expect(await readStore(t, store)).toBe(10n)
  })

  it('eth_requestAccounts from a dApp waits too, listed under its origin', async () => {
    const dapp = originClient(t, DAPP)
    const answer = dapp.send('eth_requestAccounts', [])
    const [approval] = await pendingApprovals(t, 1)
    expect(approval!.method).toBe('eth_requestAccounts')
    expect(approval!.origin).toBe(DAPP)
    expect(await isSettled(answer)).toBe(false)
    await t.rpc('flashchain_resolveApproval', [approval!.id, 'approve'])
    const accounts = (await answer).result as string[]
    expect(accounts.map((account) => account.toLowerCase())).toEqual(t.accounts.map((account) => account.address.toLowerCase()))
  })

  it('an origin already authorized is not asked again: eth_requestAccounts answers at once', async () => {
    const accounts = await originClient(t, DAPP).rpc<string[]>('eth_requestAccounts', [])
    expect(accounts).toHaveLength(t.accounts.length)
    expect(await t.rpc('flashchain_getPendingApprovals', [])).toEqual([])
  })

  it('an atomic batch from a fresh account under manual: every prompt (upgrade, send) is listed in turn; approving them all completes it', async () => {
    const from = t.accounts[5]!.address
    const answer = fire(batch(from, [storeSet(store, 13n), storeSet(store, 14n)]))
    const seen: PendingApproval[] = []
    // At most two prompts: the EIP-7702 upgrade and the batch itself. The time bound only says what was seen when a
    // prompt never came, before the test's own timeout.
    const deadline = Date.now() + 20_000
    while (!(await isSettled(answer))) {
      if (Date.now() > deadline) throw new Error(`still waiting after 20 s; prompts seen: ${JSON.stringify(seen)}`)
      const list = await t.rpc<PendingApproval[]>('flashchain_getPendingApprovals', [])
      for (const approval of list) {
        if (seen.some((known) => known.id === approval.id)) continue
        seen.push(approval)
        await t.rpc('flashchain_resolveApproval', [approval.id, 'approve'])
      }
      if (seen.length > 2) throw new Error(`more than two prompts: ${JSON.stringify(seen)}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(seen.length).toBeGreaterThanOrEqual(1)
    expect(seen.every((approval) => approval.origin === null)).toBe(true)
    const result = (await answer).result as SendCallsResult
    await t.mine()
    expect((await callsStatus(t, result.id)).status).toBe(200)
    expect(await readStore(t, store)).toBe(14n)
  })

  it('wallet_watchAsset waits too, and the token is added only once approved', async () => {
    const owner = ownerClient(t)
    const answer = owner.send('wallet_watchAsset', { type: 'ERC20', options: { address: token, symbol: 'TKN', decimals: 18 } })
    const [approval] = await pendingApprovals(t, 1)
    expect(approval!.method).toBe('wallet_watchAsset')
    expect(await t.rpc('flashchain_getWatchedAssets', [])).toEqual([])
    await t.rpc('flashchain_resolveApproval', [approval!.id, 'approve'])
    expect((await answer).result).toBe(true)
    const assets = await t.rpc<WatchedAsset[]>('flashchain_getWatchedAssets', [])
    expect(assets.map((asset) => asset.address.toLowerCase())).toEqual([token])
  })

  it('flashchain_resolveApproval: an unknown id or a decision other than approve/reject → -32602', async () => {
    expect((await t.rpcError('flashchain_resolveApproval', ['no-such-approval', 'approve'])).code).toBe(-32602)
    expect((await t.rpcError('flashchain_resolveApproval', ['no-such-approval', 'reject'])).code).toBe(-32602)
    const answer = fire(batch(t.accounts[4]!.address, [storeSet(store, 12n)], { atomicRequired: false }))
    const [approval] = await pendingApprovals(t, 1)
    expect((await t.rpcError('flashchain_resolveApproval', [approval!.id, 'maybe'])).code).toBe(-32602)
    expect((await t.rpcError('flashchain_resolveApproval', [approval!.id])).code).toBe(-32602)
    // The bad calls left it pending.
    expect(await isSettled(answer)).toBe(false)
    await t.rpc('flashchain_resolveApproval', [approval!.id, 'reject'])
    expect((await answer).error?.code).toBe(4001)
  })
})

describe('approval timeout (approval: manual, approvalTimeout: 1000)', () => {
  let t: TestChain

  beforeAll(async () => {
    // Long enough that a loaded machine still sees the request listed before it times out.
    t = await startWallet({ approval: 'manual', approvalTimeout: 1_000 })
  })

  afterAll(async () => {
    await t?.close()
  })

  it('an unresolved request gets 4001 once the timeout passes, and leaves the pending list', async () => {
    const started = Date.now()
    const answer = t.send('wallet_sendCalls', [batch(t.accounts[0]!.address, [{ to: recipient, value: '0x1' }], { atomicRequired: false })])
    await pendingApprovals(t, 1)
    const response = await answer
    const elapsed = Date.now() - started
    expect(response.error?.code).toBe(4001)
    expect(response.error?.message).toContain(MESSAGES.rejected)
    // Not before the timeout (measured from before the request, so a slow machine only lengthens it); that it comes
    // at all, the test's own timeout tells.
    expect(elapsed).toBeGreaterThanOrEqual(995)
    expect(await t.rpc('flashchain_getPendingApprovals', [])).toEqual([])
    expect(await t.rpc('eth_getTransactionCount', [t.accounts[0]!.address, 'pending'])).toBe('0x0')
  })
})

describe('policies (server started with the default, approve)', () => {
  let t: TestChain
  let store: Hex
  let token: Hex

  beforeAll(async () => {
    t = await startWallet()
    ;[store, token] = await deployAll(t, [
      { contract: Store, args: [0n] },
      { contract: compileToken(), args: ['TKN', 18] },
    ])
  })

  afterAll(async () => {
    await t?.close()
  })

  const watch = () => ownerClient(t).send('wallet_watchAsset', { type: 'ERC20', options: { address: token, symbol: 'TKN', decimals: 18 } })
  const sendNonAtomic = (account: number, value: bigint) =>
    t.send('wallet_sendCalls', [batch(t.accounts[account]!.address, [storeSet(store, value)], { atomicRequired: false })])

  it('approve by default: requests go through without a pending approval', async () => {
    const response = await sendNonAtomic(0, 1n)
    expect(response.error).toBeUndefined()
    expect(await t.rpc('flashchain_getPendingApprovals', [])).toEqual([])
    await t.mine()
  })

  it('flashchain_setApprovalPolicy answers true, and rejects values other than approve/reject/manual with -32602', async () => {
    expect(await t.rpc('flashchain_setApprovalPolicy', [{ default: 'approve' }])).toBe(true)
    expect((await t.rpcError('flashchain_setApprovalPolicy', [{ default: 'sometimes' }])).code).toBe(-32602)
    expect((await t.rpcError('flashchain_setApprovalPolicy', [{ default: 'approve', methods: { wallet_sendCalls: 'yes' } }])).code).toBe(-32602)
    expect((await t.rpcError('flashchain_setApprovalPolicy', [{}])).code).toBe(-32602)
  })

  it('default reject with wallet_sendCalls approve: batches go through, watchAsset and eth_requestAccounts get 4001', async () => {
    await setPolicy(t, { default: 'reject', methods: { wallet_sendCalls: 'approve' } })
    try {
      const sent = await sendNonAtomic(1, 2n)
      expect(sent.error).toBeUndefined()
      const watched = await watch()
      expect(watched.error?.code).toBe(4001)
      expect(watched.error?.message).toContain(MESSAGES.rejected)
      const requested = await originClient(t, DAPP).send('eth_requestAccounts', [])
      expect(requested.error?.code).toBe(4001)
      // eth_sendTransaction moves value too, and has no key of its own: the default decides.
      const transaction = await t.send('eth_sendTransaction', [{ from: t.accounts[1]!.address, to: recipient, value: '0x1' }])
      expect(transaction.error?.code).toBe(4001)
      expect(transaction.error?.message).toContain(MESSAGES.rejected)
      await t.mine()
      expect(await readStore(t, store)).toBe(2n)
      expect(await t.rpc('flashchain_getWatchedAssets', [])).toEqual([])
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
  })

  it('default approve with wallet_sendCalls reject: batches get 4001, watchAsset goes through', async () => {
    await setPolicy(t, { default: 'approve', methods: { wallet_sendCalls: 'reject' } })
    try {
      const sent = await sendNonAtomic(2, 3n)
      expect(sent.error?.code).toBe(4001)
      expect(sent.error?.message).toContain(MESSAGES.rejected)
      expect((await watch()).result).toBe(true)
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
  })

  it('default manual with wallet_sendCalls approve: batches do not wait', async () => {
    await setPolicy(t, { default: 'manual', methods: { wallet_sendCalls: 'approve', upgrade: 'approve' } })
    try {
      const sent = await sendNonAtomic(3, 4n)
      expect(sent.error).toBeUndefined()
      expect(await t.rpc('flashchain_getPendingApprovals', [])).toEqual([])
      await t.mine()
      expect(await readStore(t, store)).toBe(4n)
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
  })

  it('upgrade: reject → 5750 for an atomic batch from an account not yet delegated; the account stays undelegated', async () => {
    await setPolicy(t, { default: 'approve', methods: { upgrade: 'reject' } })
    try {
      const response = await t.send('wallet_sendCalls', [batch(t.accounts[4]!.address, [storeSet(store, 5n)])])
      expect(response.error?.code).toBe(5750)
      expect(response.error?.message).toContain(MESSAGES.upgradeRejected)
      expect(await t.rpc('eth_getCode', [t.accounts[4]!.address, 'pending'])).toBe('0x')
      // A non-atomic batch needs no upgrade.
      const sequential = await sendNonAtomic(4, 6n)
      expect(sequential.error).toBeUndefined()
      await t.mine()
      expect(await readStore(t, store)).toBe(6n)
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
  })

  it('upgrade: reject does not concern an account already delegated to the executor', async () => {
    const first = await t.rpc<SendCallsResult>('wallet_sendCalls', [batch(t.accounts[5]!.address, [storeSet(store, 20n)])])
    await t.mine()
    expect((await callsStatus(t, first.id)).status).toBe(200)
    await setPolicy(t, { default: 'approve', methods: { upgrade: 'reject' } })
    try {
      const second = await t.rpc<SendCallsResult>('wallet_sendCalls', [batch(t.accounts[5]!.address, [storeSet(store, 21n)])])
      await t.mine()
      expect((await callsStatus(t, second.id)).status).toBe(200)
      expect(await readStore(t, store)).toBe(21n)
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
  })

  it('upgrade: manual waits for its own approval, and rejecting it gives 5750', async () => {
    await setPolicy(t, { default: 'approve', methods: { upgrade: 'manual' } })
    try {
      const answer = t.send('wallet_sendCalls', [batch(t.accounts[6]!.address, [storeSet(store, 30n)])])
      const [approval] = await pendingApprovals(t, 1)
      expect(await isSettled(answer)).toBe(false)
      await t.rpc('flashchain_resolveApproval', [approval!.id, 'reject'])
      const response = await answer
      expect(response.error?.code).toBe(5750)
      expect(await t.rpc('eth_getCode', [t.accounts[6]!.address, 'pending'])).toBe('0x')
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
  })

  it('an atomic batch that needs the upgrade asks for itself first and for the upgrade second', async () => {
    await setPolicy(t, { default: 'manual' })
    try {
      // Approve the request, reject the upgrade: 5750.
      const upgradeRejected = t.send('wallet_sendCalls', [batch(t.accounts[7]!.address, [storeSet(store, 40n)])])
      const [request] = await pendingApprovals(t, 1)
      expect(request).toMatchObject({ method: 'wallet_sendCalls', key: 'wallet_sendCalls' })
      await t.rpc('flashchain_resolveApproval', [request!.id, 'approve'])
      const [upgrade] = await pendingApprovals(t, 1)
      expect(upgrade).toMatchObject({ method: 'wallet_sendCalls', key: 'upgrade' })
      const [asked] = upgrade!.params as [{ account: string; delegate: string }]
      expect([asked.account.toLowerCase(), asked.delegate.toLowerCase()]).toEqual([
        t.accounts[7]!.address.toLowerCase(),
        EXECUTOR_ADDRESS.toLowerCase(),
      ])
      expect(await isSettled(upgradeRejected)).toBe(false)
      await t.rpc('flashchain_resolveApproval', [upgrade!.id, 'reject'])
      expect((await upgradeRejected).error?.code).toBe(5750)

      // Reject the request: 4001, and the upgrade is never asked.
      const requestRejected = t.send('wallet_sendCalls', [batch(t.accounts[7]!.address, [storeSet(store, 41n)])])
      const [second] = await pendingApprovals(t, 1)
      expect(second).toMatchObject({ key: 'wallet_sendCalls' })
      await t.rpc('flashchain_resolveApproval', [second!.id, 'reject'])
      expect((await requestRejected).error?.code).toBe(4001)
      expect(await t.rpc('flashchain_getPendingApprovals', [])).toEqual([])
      expect(await t.rpc('eth_getCode', [t.accounts[7]!.address, 'pending'])).toBe('0x')
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
  })

  it('a server started with approval: reject rejects at once', async () => {
    const rejecting = await startWallet({ approval: 'reject' })
    try {
      const response = await rejecting.send('wallet_sendCalls', [
        batch(rejecting.accounts[0]!.address, [{ to: recipient, value: '0x1' }], { atomicRequired: false }),
      ])
      expect(response.error?.code).toBe(4001)
      expect(response.error?.message).toContain(MESSAGES.rejected)
      expect(await rejecting.rpc<PendingApproval[]>('flashchain_getPendingApprovals', [])).toEqual([])
    } finally {
      await rejecting.close()
    }
  })
})
