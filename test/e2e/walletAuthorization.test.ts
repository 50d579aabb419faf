/**
 * Who may use the wallet, end to end: requests with an HTTP Origin (browser dApps) must be authorized through
 * eth_requestAccounts or wallet_requestPermissions (EIP-2255) first; requests without one, on the loopback bind,
 * act as the owner; admin methods are the owner's only; permissions persist across a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createWalletClient, http } from 'viem'

import { Store } from './fixtures/contracts.ts'
import {
  DAPP,
  MESSAGES,
  OTHER_DAPP,
  batch,
  callsStatus,
  clientWith,
  deployAll,
  originClient,
  readStore,
  setPolicy,
  startWallet,
  storeSet,
  tempDataDir,
} from './walletHelpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'
import type { Permission, SendCallsResult } from './walletHelpers.ts'

const WALLET_TOKEN = 'test-wallet-token'
const NOT_A_WALLET_ACCOUNT = '0x1111111111111111111111111111111111111111'

let t: TestChain
let store: Hex
let accounts: string[]

beforeAll(async () => {
  t = await startWallet({ walletToken: WALLET_TOKEN })
  ;[store] = await deployAll(t, [{ contract: Store, args: [0n] }])
  accounts = t.accounts.map((account) => account.address.toLowerCase())
})

afterAll(async () => {
  await t?.close()
})

const lower = (list: string[]) => list.map((item) => item.toLowerCase())

/** The permission entries of EIP-2255 for eth_accounts, checked field by field. */
function checkAccountsPermission(permissions: Permission[], origin: string, before: number): void {
  const entries = permissions.filter((permission) => permission.parentCapability === 'eth_accounts')
  expect(entries).toHaveLength(1)
  const [entry] = entries
  expect(entry!.invoker).toBe(origin)
  expect(entry!.caveats).toHaveLength(1)
  expect(entry!.caveats[0]!.type).toBe('restrictReturnedAccounts')
  expect(lower(entry!.caveats[0]!.value as string[])).toEqual(accounts)
  expect(typeof entry!.date).toBe('number')
  expect(entry!.date).toBeGreaterThanOrEqual(before - 1000)
  expect(entry!.date).toBeLessThanOrEqual(Date.now() + 1000)
}

describe('the owner: no Origin header on the loopback bind', () => {
  it('eth_accounts lists every wallet account', async () => {
    expect(lower(await t.rpc<string[]>('eth_accounts'))).toEqual(accounts)
  })

  it('eth_requestAccounts answers every wallet account at once', async () => {
    expect(lower(await t.rpc<string[]>('eth_requestAccounts'))).toEqual(accounts)
  })

  it('may send batches from any wallet account without authorizing first', async () => {
    const result = await t.rpc<SendCallsResult>('wallet_sendCalls', [batch(t.accounts[7]!.address, [storeSet(store, 1n)], { atomicRequired: false })])
    await t.mine()
    expect((await callsStatus(t, result.id)).status).toBe(200)
  })

  it('a from outside the wallet gets 4100 even for the owner, over HTTP and in process', async () => {
    const error = await t.rpcError('wallet_sendCalls', [batch(NOT_A_WALLET_ACCOUNT, [storeSet(store, 2n)])])
    expect(error.code).toBe(4100)
    expect(error.message).toContain(MESSAGES.unauthorized)
    await expect(
      t.flashchain.request({ method: 'wallet_sendCalls' as string, params: [batch(NOT_A_WALLET_ACCOUNT, [storeSet(store, 2n)])] }),
    ).rejects.toMatchObject({ code: 4100 })
  })

  it('a wrong or missing bearer token changes nothing on the loopback bind (the owner needs none there)', async () => {
    const variants: Record<string, string>[] = [{ Authorization: 'Bearer wrong-token' }, { Authorization: `Bearer ${WALLET_TOKEN}` }, {}]
    for (const headers of variants) {
      const client = clientWith(t.url, headers)
      expect(lower(await client.rpc<string[]>('eth_accounts'))).toEqual(accounts)
      expect(await client.rpc('flashchain_getPendingApprovals', [])).toEqual([])
      const result = await client.rpc<SendCallsResult>('wallet_sendCalls', [
        batch(t.accounts[7]!.address, [storeSet(store, 3n)], { atomicRequired: false }),
      ])
      expect(result.status).toBe('pending')
    }
    await t.mine()
    expect(await readStore(t, store)).toBe(3n)
  })

  it('admin methods work for the owner', async () => {
    expect(await t.rpc('flashchain_setApprovalPolicy', [{ default: 'approve' }])).toBe(true)
    expect(await t.rpc('flashchain_getPendingApprovals', [])).toEqual([])
    expect(await t.rpc('flashchain_getWatchedAssets', [])).toEqual([])
    expect((await t.rpcError('flashchain_resolveApproval', ['unknown', 'approve'])).code).toBe(-32602)
  })
})

describe('a browser dApp: requests with an Origin header', () => {
  it('before authorization: eth_accounts is [], wallet_getPermissions is [], wallet_sendCalls gets 4100', async () => {
    const dapp = originClient(t, DAPP)
    expect(await dapp.rpc('eth_accounts', [])).toEqual([])
    expect(await dapp.rpc('wallet_getPermissions', [])).toEqual([])
    const error = await dapp.rpcError('wallet_sendCalls', [batch(t.accounts[0]!.address, [storeSet(store, 10n)])])
    expect(error.code).toBe(4100)
    expect(error.message).toContain(MESSAGES.unauthorized)
    expect(await t.rpc('eth_getTransactionCount', [t.accounts[0]!.address, 'pending'])).toBe('0x0')
  })

  it('eth_requestAccounts rejected by the policy → 4001, and the dApp stays unauthorized', async () => {
    const dapp = originClient(t, DAPP)
    await setPolicy(t, { default: 'approve', methods: { eth_requestAccounts: 'reject' } })
    try {
      const error = await dapp.rpcError('eth_requestAccounts', [])
      expect(error.code).toBe(4001)
      expect(error.message).toContain(MESSAGES.rejected)
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
    expect(await dapp.rpc('eth_accounts', [])).toEqual([])
    expect((await dapp.rpcError('wallet_sendCalls', [batch(t.accounts[0]!.address, [storeSet(store, 10n)])])).code).toBe(4100)
  })

  it('eth_requestAccounts grants the wallet accounts; then eth_accounts lists them and batches go through', async () => {
    const dapp = originClient(t, DAPP)
    const before = Date.now()
    expect(lower(await dapp.rpc<string[]>('eth_requestAccounts', []))).toEqual(accounts)
    expect(lower(await dapp.rpc<string[]>('eth_accounts', []))).toEqual(accounts)
    checkAccountsPermission(await dapp.rpc<Permission[]>('wallet_getPermissions', []), DAPP, before)

    const result = await dapp.rpc<SendCallsResult>('wallet_sendCalls', [batch(t.accounts[0]!.address, [storeSet(store, 11n)])])
    expect(result.status).toBe('pending')
    await t.mine()
    expect((await dapp.rpc<{ status: number }>('wallet_getCallsStatus', [result.id])).status).toBe(200)
    expect(await readStore(t, store)).toBe(11n)
  })

  it('viem with an Origin header: sendCalls from an authorized dApp', async () => {
    const client = createWalletClient({
      chain: t.chain,
      transport: http(t.url, { retryCount: 0, fetchOptions: { headers: { Origin: DAPP } } }),
      account: t.accounts[1]!.address,
    })
    expect(lower(await client.getAddresses())).toEqual(accounts)
    const { id } = await client.sendCalls({ calls: [{ to: store, abi: Store.abi, functionName: 'set', args: [12n] }] })
    const waiting = client.waitForCallsStatus({ id, pollingInterval: 20, timeout: 5000 })
    await t.mine()
    expect((await waiting).status).toBe('success')
    expect(await readStore(t, store)).toBe(12n)
  })

  it('authorization is per origin: another origin is still unauthorized', async () => {
    const other = originClient(t, OTHER_DAPP)
    expect(await other.rpc('eth_accounts', [])).toEqual([])
    expect(await other.rpc('wallet_getPermissions', [])).toEqual([])
    expect((await other.rpcError('wallet_sendCalls', [batch(t.accounts[0]!.address, [storeSet(store, 13n)])])).code).toBe(4100)
  })

  it('an authorized dApp still gets 4100 for a from outside the wallet', async () => {
    const dapp = originClient(t, DAPP)
    expect((await dapp.rpcError('wallet_sendCalls', [batch(NOT_A_WALLET_ACCOUNT, [storeSet(store, 14n)])])).code).toBe(4100)
  })

  it('wallet_requestPermissions [{ eth_accounts: {} }] grants the accounts too, with the EIP-2255 shapes', async () => {
    const other = originClient(t, OTHER_DAPP)
    const before = Date.now()
    const granted = await other.rpc<Permission[]>('wallet_requestPermissions', [{ eth_accounts: {} }])
    expect(Array.isArray(granted)).toBe(true)
    expect(granted.some((permission) => permission.parentCapability === 'eth_accounts')).toBe(true)
    checkAccountsPermission(await other.rpc<Permission[]>('wallet_getPermissions', []), OTHER_DAPP, before)
    expect(lower(await other.rpc<string[]>('eth_accounts', []))).toEqual(accounts)
    const result = await other.rpc<SendCallsResult>('wallet_sendCalls', [
      batch(t.accounts[2]!.address, [storeSet(store, 15n)], { atomicRequired: false }),
    ])
    expect(result.status).toBe('pending')
    await t.mine()
  })

  it('wallet_requestPermissions goes through the approval policy (eth_requestAccounts key): reject → 4001', async () => {
    const third = originClient(t, 'https://third.example')
    await setPolicy(t, { default: 'approve', methods: { eth_requestAccounts: 'reject' } })
    try {
      const error = await third.rpcError('wallet_requestPermissions', [{ eth_accounts: {} }])
      expect(error.code).toBe(4001)
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
    expect(await third.rpc('wallet_getPermissions', [])).toEqual([])
    expect(await third.rpc('eth_accounts', [])).toEqual([])
  })

  it('eth_sendTransaction (it moves value) from an unauthorized origin → 4100; from an authorized one it is sent', async () => {
    const stranger = originClient(t, 'https://tx.example')
    const request = { from: t.accounts[3]!.address, to: NOT_A_WALLET_ACCOUNT, value: '0x7' }
    const error = await stranger.rpcError('eth_sendTransaction', [request])
    expect(error.code).toBe(4100)
    const hash = await originClient(t, DAPP).rpc<Hex>('eth_sendTransaction', [request])
    await t.mine()
    expect(await t.rpc('eth_getTransactionReceipt', [hash])).toMatchObject({ status: '0x1' })
  })

  it('wallet_getCapabilities from an unauthorized origin → 4100', async () => {
    const fourth = originClient(t, 'https://fourth.example')
    expect((await fourth.rpcError('wallet_getCapabilities', [t.accounts[0]!.address])).code).toBe(4100)
  })

  it('admin methods with an Origin → 4100, even from an authorized dApp', async () => {
    for (const origin of [DAPP, 'https://stranger.example']) {
      const client = originClient(t, origin)
      const calls: [string, unknown[]][] = [
        ['flashchain_getPendingApprovals', []],
        ['flashchain_resolveApproval', ['some-id', 'approve']],
        ['flashchain_setApprovalPolicy', [{ default: 'approve' }]],
        ['flashchain_getWatchedAssets', []],
      ]
      for (const [method, params] of calls) {
        const error = await client.rpcError(method, params)
        expect(error.code, `${method} from ${origin}`).toBe(4100)
      }
    }
    // The dApp's attempt changed nothing: the owner still sees the default policy at work.
    const sent = await t.rpc<SendCallsResult>('wallet_sendCalls', [batch(t.accounts[7]!.address, [storeSet(store, 16n)], { atomicRequired: false })])
    expect(sent.status).toBe('pending')
    await t.mine()
  })
})

describe('permissions persist across a restart', () => {
  const data = tempDataDir('authorization')

  afterAll(() => {
    data.remove()
  })

  it('an authorized origin is still authorized after close and reopen of the same data dir', async () => {
    let chain = await startWallet({ dataDir: data.dir })
    try {
      const before = Date.now()
      expect(lower(await originClient(chain, DAPP).rpc<string[]>('eth_requestAccounts', []))).toHaveLength(10)
      checkAccountsPermission(await originClient(chain, DAPP).rpc<Permission[]>('wallet_getPermissions', []), DAPP, before)
    } finally {
      await chain.close()
    }
    chain = await startWallet({ dataDir: data.dir })
    try {
      const dapp = originClient(chain, DAPP)
      const expected = chain.accounts.map((account) => account.address.toLowerCase())
      expect(lower(await dapp.rpc<string[]>('eth_accounts', []))).toEqual(expected)
      const permissions = await dapp.rpc<Permission[]>('wallet_getPermissions', [])
      expect(permissions.map((permission) => [permission.parentCapability, permission.invoker])).toEqual([['eth_accounts', DAPP]])
      const result = await dapp.rpc<SendCallsResult>('wallet_sendCalls', [
        batch(chain.accounts[0]!.address, [{ to: NOT_A_WALLET_ACCOUNT, value: '0x1' }], { atomicRequired: false }),
      ])
      expect(result.status).toBe('pending')
      // Another origin was never authorized.
      expect(await originClient(chain, OTHER_DAPP).rpc('eth_accounts', [])).toEqual([])
    } finally {
      await chain.close()
    }
  })
})
