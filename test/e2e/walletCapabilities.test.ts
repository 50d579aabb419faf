/**
 * wallet_getCapabilities and wallet_showCallsStatus end to end: the atomic status of an account (ready →
 * supported after its first atomic batch; unsupported when delegated elsewhere or on cancun), the chainIds filter,
 * cancun without EIP-7702 (5710 for atomic batches, non-atomic ones still work), and batch status kept across a
 * restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createWalletClient, http } from 'viem'

import { Store } from './fixtures/contracts.ts'
import {
  CHAIN_ID,
  EXECUTOR_DESIGNATOR,
  MESSAGES,
  batch,
  callsStatus,
  deployAll,
  readStore,
  sendCalls,
  startWallet,
  storeSet,
  tempDataDir,
} from './walletHelpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'
import type { CallsStatus } from './walletHelpers.ts'

const NOT_A_WALLET_ACCOUNT = '0x1111111111111111111111111111111111111111'

/** What the wallet reports beside the atomic status, for every account. */
const others = {
  gasLimitOverride: { supported: true },
  dataSuffix: { supported: true },
  paymasterService: { supported: false },
  auxiliaryFunds: { supported: false },
}

const capabilities = (status: 'ready' | 'supported' | 'unsupported') => ({
  [CHAIN_ID]: { atomic: { status }, ...others },
})

describe('osaka (EIP-7702)', () => {
  let t: TestChain
  let store: Hex

  beforeAll(async () => {
    t = await startWallet()
    ;[store] = await deployAll(t, [{ contract: Store, args: [0n] }])
  })

  afterAll(async () => {
    await t?.close()
  })

  const getCapabilities = (params: unknown[]) => t.rpc('wallet_getCapabilities', params)

  it('an account not yet delegated: atomic ready, gasLimitOverride supported', async () => {
    expect(await getCapabilities([t.accounts[0]!.address])).toEqual(capabilities('ready'))
    expect(await getCapabilities([t.accounts[0]!.address.toLowerCase()])).toEqual(capabilities('ready'))
  })

  it('after its first atomic batch the account is delegated to the executor: atomic supported', async () => {
    const result = await sendCalls(t, batch(t.accounts[0]!.address, [storeSet(store, 1n), storeSet(store, 2n)]))
    await t.mine()
    expect((await callsStatus(t, result.id)).status).toBe(200)
    expect(await t.rpc('eth_getCode', [t.accounts[0]!.address, 'latest'])).toBe(EXECUTOR_DESIGNATOR)
    expect(await getCapabilities([t.accounts[0]!.address])).toEqual(capabilities('supported'))
    // Other accounts are untouched.
    expect(await getCapabilities([t.accounts[1]!.address])).toEqual(capabilities('ready'))
  })

  it('an account delegated to another contract: atomic unsupported', async () => {
    const wallet = t.wallet(2)
    const authorization = await wallet.signAuthorization({ contractAddress: store, executor: 'self' })
    await wallet.sendTransaction({ authorizationList: [authorization], to: NOT_A_WALLET_ACCOUNT, gas: 100_000n })
    await t.mine()
    expect(await t.rpc('eth_getCode', [t.accounts[2]!.address, 'latest'])).toBe(`0xef0100${store.slice(2)}`)
    expect(await getCapabilities([t.accounts[2]!.address])).toEqual(capabilities('unsupported'))
  })

  it('the chainIds filter: without 0x7a69 → {}; with it → only 0x7a69', async () => {
    const address = t.accounts[1]!.address
    expect(await getCapabilities([address, ['0x1']])).toEqual({})
    expect(await getCapabilities([address, ['0x1', '0x2105']])).toEqual({})
    expect(await getCapabilities([address, [CHAIN_ID]])).toEqual(capabilities('ready'))
    expect(await getCapabilities([address, ['0x1', CHAIN_ID]])).toEqual(capabilities('ready'))
    expect(await getCapabilities([address, []])).toEqual({})
  })

  it('an address that is not a wallet account → 4100', async () => {
    const error = await t.rpcError('wallet_getCapabilities', [NOT_A_WALLET_ACCOUNT])
    expect(error.code).toBe(4100)
    expect(error.message).toContain(MESSAGES.unauthorized)
  })

  it('a malformed address or chainIds → -32602', async () => {
    expect((await t.rpcError('wallet_getCapabilities', ['0x1234'])).code).toBe(-32602)
    expect((await t.rpcError('wallet_getCapabilities', [t.accounts[1]!.address, '0x7a69'])).code).toBe(-32602)
  })

  it("viem's getCapabilities reads the per-chain answer", async () => {
    const client = createWalletClient({ chain: t.chain, transport: http(t.url, { retryCount: 0 }), account: t.accounts[0]!.address })
    const all = (await client.getCapabilities()) as Record<number, unknown>
    expect(all[31337]).toEqual({ atomic: { status: 'supported' }, ...others })
    const one = await client.getCapabilities({ account: t.accounts[1]!.address, chainId: 31337 })
    expect(one).toEqual({ atomic: { status: 'ready' }, ...others })
  })

  it('wallet_showCallsStatus: null for a known batch, 5730 for an unknown one', async () => {
    const result = await sendCalls(t, batch(t.accounts[3]!.address, [storeSet(store, 3n)], { atomicRequired: false }))
    expect(await t.rpc('wallet_showCallsStatus', [result.id])).toBeNull()
    await t.mine()
    expect(await t.rpc('wallet_showCallsStatus', [result.id])).toBeNull()
    expect((await t.rpcError('wallet_showCallsStatus', [`0x${'ee'.repeat(32)}`])).code).toBe(5730)
  })
})

describe('cancun (no EIP-7702)', () => {
  let t: TestChain
  let store: Hex

  beforeAll(async () => {
    t = await startWallet({ hardfork: 'cancun' })
    ;[store] = await deployAll(t, [{ contract: Store, args: [0n] }])
  })

  afterAll(async () => {
    await t?.close()
  })

  it('wallet_getCapabilities: atomic unsupported, gasLimitOverride still supported', async () => {
    expect(await t.rpc('wallet_getCapabilities', [t.accounts[0]!.address])).toEqual(capabilities('unsupported'))
  })

  it('atomicRequired true → 5710 "EIP-7702 not supported on the specified chain ID", and nothing is sent', async () => {
    const error = await t.rpcError('wallet_sendCalls', [batch(t.accounts[0]!.address, [storeSet(store, 1n), storeSet(store, 2n)])])
    expect(error.code).toBe(5710)
    expect(error.message).toContain(MESSAGES.noEip7702)
    expect(await t.rpc('eth_getTransactionCount', [t.accounts[0]!.address, 'pending'])).toBe('0x0')
  })

  it('non-atomic batches still work: one transaction per call, 200, atomic false', async () => {
    const result = await sendCalls(
      t,
      batch(t.accounts[0]!.address, [storeSet(store, 5n), storeSet(store, 6n, { capabilities: { gasLimitOverride: { value: '0x186a0' } } })], {
        atomicRequired: false,
      }),
    )
    await t.mine()
    const status = await callsStatus(t, result.id)
    expect(status).toMatchObject({ version: '2.0.0', id: result.id, chainId: CHAIN_ID, status: 200, atomic: false })
    expect(status.receipts).toHaveLength(2)
    expect(await readStore(t, store)).toBe(6n)
    expect(await t.rpc('eth_getCode', [t.accounts[0]!.address, 'latest'])).toBe('0x')
  })

  it('a duplicate id (7) is reported before the missing EIP-7702 (8)', async () => {
    const id = `0x${'d7'.repeat(32)}`
    await sendCalls(t, batch(t.accounts[1]!.address, [storeSet(store, 7n)], { id, atomicRequired: false }))
    await t.mine()
    expect((await t.rpcError('wallet_sendCalls', [batch(t.accounts[1]!.address, [storeSet(store, 8n)], { id })])).code).toBe(5720)
  })
})

describe('batch status survives a restart', () => {
  const data = tempDataDir('capabilities')

  afterAll(() => {
    data.remove()
  })

  it('an atomic batch sealed before close is still 200 after reopening the same data dir, receipts unchanged; the account stays supported', async () => {
    let chain = await startWallet({ dataDir: data.dir })
    let before: CallsStatus
    let pendingId: string
    const account = () => chain.accounts[0]!.address
    try {
      const [store] = await deployAll(chain, [{ contract: Store, args: [0n] }])
      const result = await sendCalls(chain, batch(account(), [storeSet(store!, 9n), storeSet(store!, 10n)], { id: `0x${'5e'.repeat(32)}` }))
      await chain.mine()
      before = await callsStatus(chain, result.id)
      expect(before).toMatchObject({ status: 200, atomic: true })
      // A second batch recorded (durably, before the reply) but not sealed at close.
      pendingId = (await sendCalls(chain, batch(account(), [storeSet(store!, 11n)], { atomicRequired: false }))).id
      expect((await callsStatus(chain, pendingId)).status).toBe(100)
    } finally {
      await chain.close()
    }
    chain = await startWallet({ dataDir: data.dir })
    try {
      expect(await callsStatus(chain, before!.id)).toEqual(before!)
      expect(await chain.rpc('wallet_showCallsStatus', [before!.id])).toBeNull()
      expect(await chain.rpc('wallet_getCapabilities', [account()])).toEqual(capabilities('supported'))
      // The id is still taken.
      expect(
        (await chain.rpcError('wallet_sendCalls', [batch(account(), [{ to: NOT_A_WALLET_ACCOUNT, value: '0x1' }], { id: before!.id })])).code,
      ).toBe(5720)
      // The unsealed batch is still known; its transaction survived in the pool, so it completes once mined.
      expect((await callsStatus(chain, pendingId!)).status).toBe(100)
      await chain.mine()
      expect((await callsStatus(chain, pendingId!)).status).toBe(200)
    } finally {
      await chain.close()
    }
  })
})

describe('what dApps probe', () => {
  let t: TestChain
  let store: Hex

  beforeAll(async () => {
    t = await startWallet()
    ;[store] = await deployAll(t, [{ contract: Store, args: [0n] }])
  })

  afterAll(async () => {
    await t?.close()
  })

  const inputsOf = async (id: string) => {
    await t.mine()
    const status = await callsStatus(t, id)
    expect(status.status).toBe(200)
    return Promise.all(
      (status.receipts ?? []).map(async (receipt) => (await t.rpc<{ input: Hex }>('eth_getTransactionByHash', [receipt.transactionHash])).input),
    )
  }

  it('dataSuffix (ERC-8021): the bytes end each call’s data, atomic or not', async () => {
    const suffix = { dataSuffix: { value: '0xdeadbeef' } }
    const calls = [storeSet(store, 11n), storeSet(store, 12n)]
    const plain = await sendCalls(t, batch(t.accounts[4]!.address, calls, { atomicRequired: false, capabilities: suffix }))
    const inputs = await inputsOf(plain.id)
    expect(inputs).toEqual(calls.map((call) => `${call.data}deadbeef`))
    expect(await readStore(t, store)).toBe(12n)

    const atomic = await sendCalls(t, batch(t.accounts[4]!.address, [storeSet(store, 13n)], { capabilities: suffix }))
    const [input] = await inputsOf(atomic.id)
    expect(input).toContain(`${storeSet(store, 13n).data!.slice(2)}deadbeef`)
    expect(await readStore(t, store)).toBe(13n)
  })

  it("viem's client dataSuffix reaches the chain through wallet_sendCalls", async () => {
    const client = createWalletClient({
      chain: t.chain,
      transport: http(t.url, { retryCount: 0 }),
      account: t.accounts[5]!.address,
      dataSuffix: '0xc0ffee',
    })
    const { id } = await client.sendCalls({ calls: [{ to: store, data: storeSet(store, 14n).data as Hex }] })
    const [input] = await inputsOf(id)
    expect(input).toContain('c0ffee')
  })

  it('dataSuffix that is not hex data → -32602 naming it', async () => {
    const error = await t.rpcError('wallet_sendCalls', [
      batch(t.accounts[4]!.address, [storeSet(store, 1n)], { capabilities: { dataSuffix: { value: '0xabc' } } }),
    ])
    expect(error).toMatchObject({ code: -32602, message: expect.stringContaining('capabilities.dataSuffix.value') })
  })

  it('paymasterService and auxiliaryFunds: 5700 when required, ignored when optional', async () => {
    for (const name of ['paymasterService', 'auxiliaryFunds']) {
      const required = await t.rpcError('wallet_sendCalls', [
        batch(t.accounts[4]!.address, [storeSet(store, 1n)], { capabilities: { [name]: { url: 'http://127.0.0.1:1' } } }),
      ])
      expect(required).toMatchObject({ code: 5700, message: expect.stringContaining(name) })
      const optional = await sendCalls(
        t,
        batch(t.accounts[4]!.address, [storeSet(store, 15n)], { atomicRequired: false, capabilities: { [name]: { optional: true } } }),
      )
      expect(optional.status).toBe('pending')
    }
    await t.mine()
  })

  it('flashchain_setAtomicStatus: reported as set; unsupported refuses batches as a wallet that cannot batch, null goes back', async () => {
    const account = t.accounts[6]!.address
    await t.rpc('flashchain_setAtomicStatus', [account, 'supported'])
    expect(await t.rpc('wallet_getCapabilities', [account])).toEqual(capabilities('supported'))
    await t.rpc('flashchain_setAtomicStatus', [account, 'unsupported'])
    expect(await t.rpc('wallet_getCapabilities', [account])).toEqual(capabilities('unsupported'))
    for (const atomicRequired of [true, false]) {
      const error = await t.rpcError('wallet_sendCalls', [batch(account, [storeSet(store, 1n)], { atomicRequired })])
      expect(error).toMatchObject({ code: 5710, message: expect.stringContaining(MESSAGES.noEip7702) })
    }
    // Other accounts are untouched.
    expect(await t.rpc('wallet_getCapabilities', [t.accounts[7]!.address])).toEqual(capabilities('ready'))
    await t.rpc('flashchain_setAtomicStatus', [account, null])
    expect(await t.rpc('wallet_getCapabilities', [account])).toEqual(capabilities('ready'))
    expect((await t.rpcError('flashchain_setAtomicStatus', [account, 'sometimes'])).code).toBe(-32602)
  })

  it("with atomic unsupported, viem's sendCalls with experimental_fallback sends each call itself, and they land", async () => {
    const account = t.accounts[8]!.address
    await t.rpc('flashchain_setAtomicStatus', [account, 'unsupported'])
    try {
      const client = createWalletClient({ chain: t.chain, transport: http(t.url, { retryCount: 0 }), account })
      const recipient = '0x00000000000000000000000000000000000fa11b'
      const { id } = await client.sendCalls({
        calls: [
          { to: store, data: storeSet(store, 21n).data as Hex },
          { to: recipient, value: 7n },
        ],
        experimental_fallback: true,
      })
      await t.mine()
      // The fallback's id is viem's own, and viem answers its status from the receipts.
      const status = await client.getCallsStatus({ id })
      expect(status.status).toBe('success')
      expect(status.receipts ?? []).toHaveLength(2)
      expect(await readStore(t, store)).toBe(21n)
      expect(await t.rpc('eth_getBalance', [recipient, 'latest'])).toBe('0x7')
    } finally {
      await t.rpc('flashchain_setAtomicStatus', [account, null])
    }
  })
})
