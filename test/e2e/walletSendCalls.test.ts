/**
 * wallet_sendCalls (EIP-5792 2.0.0) and wallet_getCallsStatus end to end: every validation error in its order,
 * atomic batches (EIP-7702 + the ERC-7821 executor), non-atomic batches with partial failure, per-call gas
 * overrides, ids, and viem's own sendCalls / waitForCallsStatus against the server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createWalletClient, encodeFunctionData, http, pad, parseGwei, toEventSelector, toFunctionSelector } from 'viem'

import { Gate, Reverter, Store } from './fixtures/contracts.ts'
import { toHex, word } from './helpers.ts'
import {
  CHAIN_ID,
  EXECUTOR,
  EXECUTOR_DESIGNATOR,
  MESSAGES,
  VIEM_FALLBACK_MARKER,
  batch,
  callsStatus,
  checkReceipt,
  deployAll,
  namesField,
  readStore,
  revertingCall,
  sendCalls,
  sendCallsError,
  setPolicy,
  startWallet,
  storeSet,
  without,
} from './walletHelpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'
import type { CallParam, SendCallsParam } from './walletHelpers.ts'

let t: TestChain
let storeA: Hex
let storeB: Hex
let storeC: Hex
let reverter: Hex
let gateA: Hex
let gateB: Hex
/** Dev accounts by role (checksummed, as viem writes them). */
let atomicUser: Hex // becomes delegated to the executor
let sequentialUser: Hex // only non-atomic batches
let undelegated: Hex // never delegated: upgrade prompts and ordering
let delegatedElsewhere: Hex // delegated to a Store by its own type-4 transaction
let viemUser: Hex
let idUser: Hex
let replacedUser: Hex // its batch transaction is replaced by one it signs itself
let concurrentUser: Hex // sends batches concurrently
let backToBackUser: Hex // sends batches one after the other, before any block seals

const NOT_A_WALLET_ACCOUNT = '0x1111111111111111111111111111111111111111'
const EXECUTE_SELECTOR = toFunctionSelector('execute(bytes32,bytes)')
const VALUE_SET = toEventSelector('ValueSet(uint256,address)')

beforeAll(async () => {
  t = await startWallet()
  ;[storeA, storeB, storeC, reverter, gateA, gateB] = await deployAll(t, [
    { contract: Store, args: [0n] },
    { contract: Store, args: [0n] },
    { contract: Store, args: [0n] },
    { contract: Reverter },
    { contract: Gate },
    { contract: Gate },
  ])
  ;[atomicUser, sequentialUser, undelegated, delegatedElsewhere, viemUser, idUser, replacedUser, concurrentUser, backToBackUser] = t.accounts
    .slice(0, 9)
    .map((account) => account.address)
})

afterAll(async () => {
  await t?.close()
})

const gateCall = (gate: string, functionName: 'enable' | 'bump'): CallParam => ({
  to: gate,
  data: encodeFunctionData({ abi: Gate.abi, functionName }),
})

/** 101 zero-value calls: one over the default --max-batch-size. */
const manyCalls = (count: number): CallParam[] =>
  Array.from({ length: count }, () => ({ to: '0x000000000000000000000000000000000000beef', value: '0x0' }))

describe('wallet_sendCalls: schema errors (-32602, naming the field)', () => {
  const valid = (): SendCallsParam => batch(undelegated, [{ to: NOT_A_WALLET_ACCOUNT, value: '0x0' }])

  it('a missing from', async () => {
    const error = await sendCallsError(t, without(valid(), 'from'))
    expect(error.code).toBe(-32602)
    expect(namesField(error.message, 'from')).toBe(true)
  })

  it('a from that does not match ^0x[0-9a-fA-F]{40}$', async () => {
    for (const from of ['0x1234', `${undelegated}00`, undelegated.slice(2), `0x${'g'.repeat(40)}`]) {
      const error = await sendCallsError(t, { ...valid(), from })
      expect(error.code, from).toBe(-32602)
      expect(namesField(error.message, 'from'), error.message).toBe(true)
    }
  })

  it('a chainId that does not match ^0x([1-9a-f]+[0-9a-f]*|0)$ (leading zero, no 0x, upper case, a number)', async () => {
    for (const chainId of ['0x07a69', '7a69', '0x7A69', 31337, '0x']) {
      const error = await sendCallsError(t, { ...valid(), chainId })
      expect(error.code, String(chainId)).toBe(-32602)
      expect(namesField(error.message, 'chainId'), error.message).toBe(true)
    }
  })

  it('a missing chainId, version, atomicRequired or calls', async () => {
    for (const field of ['chainId', 'version', 'atomicRequired', 'calls'] as const) {
      const error = await sendCallsError(t, without(valid(), field))
      expect(error.code, field).toBe(-32602)
      expect(namesField(error.message, field), error.message).toBe(true)
    }
  })

  it('atomicRequired that is not a boolean, calls that is not an array', async () => {
    let error = await sendCallsError(t, { ...valid(), atomicRequired: 'true' })
    expect(error.code).toBe(-32602)
    expect(namesField(error.message, 'atomicRequired'), error.message).toBe(true)
    error = await sendCallsError(t, { ...valid(), calls: { to: storeA } })
    expect(error.code).toBe(-32602)
    expect(namesField(error.message, 'calls'), error.message).toBe(true)
  })

  it('a call with a bad or missing to', async () => {
    for (const call of [{ to: '0x12', value: '0x0' }, { value: '0x0' }, { to: 1234, value: '0x0' }]) {
      const error = await sendCallsError(t, { ...valid(), calls: [{ to: storeA, value: '0x0' }, call] })
      expect(error.code, JSON.stringify(call)).toBe(-32602)
      expect(namesField(error.message, 'calls', '1', 'to'), error.message).toBe(true)
    }
  })

  it('a call with a value or data that is not hex', async () => {
    let error = await sendCallsError(t, { ...valid(), calls: [{ to: storeA, value: '12' }] })
    expect(error.code).toBe(-32602)
    expect(namesField(error.message, 'calls', '0', 'value'), error.message).toBe(true)
    error = await sendCallsError(t, { ...valid(), calls: [{ to: storeA, value: '0x0', data: 'hello' }] })
    expect(error.code).toBe(-32602)
    expect(namesField(error.message, 'calls', '0', 'data'), error.message).toBe(true)
  })

  it('a gasLimitOverride that is not a hex quantity > 0 and ≤ the block gas limit (30,000,000)', async () => {
    for (const value of ['0x0', '0x1c9c381', 'ten', 100000, undefined]) {
      const call = storeSet(storeA, 1n, { capabilities: { gasLimitOverride: value === undefined ? {} : { value } } })
      const error = await sendCallsError(t, { ...valid(), calls: [call] })
      expect(error.code, String(value)).toBe(-32602)
      expect(namesField(error.message, 'gasLimitOverride'), error.message).toBe(true)
    }
  })

  it('no parameter object at all', async () => {
    expect((await t.rpcError('wallet_sendCalls', [])).code).toBe(-32602)
  })
})

describe('wallet_sendCalls: version, authorization, chain', () => {
  it('version other than 2.0.0 → -32000 "Version not supported: got X, expected 2.0.0"', async () => {
    for (const version of ['1.0', '1.0.0', '2.0', '2.0.1']) {
      const error = await sendCallsError(t, batch(undelegated, [{ to: storeA, value: '0x0' }], { version }))
      expect(error.code, version).toBe(-32000)
      expect(error.message).toBe(`Version not supported: got ${version}, expected 2.0.0`)
    }
  })

  it('a from that is not one of the wallet accounts → 4100, even for the owner', async () => {
    const error = await sendCallsError(t, batch(NOT_A_WALLET_ACCOUNT, [{ to: storeA, value: '0x0' }]))
    expect(error.code).toBe(4100)
    expect(error.message).toContain(MESSAGES.unauthorized)
    // In process (the owner as well).
    await expect(
      t.flashchain.request({ method: 'wallet_sendCalls' as string, params: [batch(NOT_A_WALLET_ACCOUNT, [{ to: storeA, value: '0x0' }])] }),
    ).rejects.toMatchObject({ code: 4100 })
  })

  it('a chainId other than the selected network → -32602 with the exact message', async () => {
    for (const chainId of ['0x1', '0x7a6a', '0x0']) {
      const error = await sendCallsError(t, batch(undelegated, [{ to: storeA, value: '0x0' }], { chainId }))
      expect(error.code, chainId).toBe(-32602)
      expect(error.message).toContain(`Chain ID must match the wallet's selected network: got ${chainId}, expected 0x7a69`)
    }
  })
})

describe('wallet_sendCalls: capabilities (5700)', () => {
  it('an unknown top-level capability without optional: true → 5700', async () => {
    const error = await sendCallsError(
      t,
      batch(undelegated, [{ to: storeA, value: '0x0' }], { capabilities: { fancyPaymaster: { url: 'https://x.example' } } }),
    )
    expect(error.code).toBe(5700)
    expect(error.message).toContain(MESSAGES.unsupportedCapability)
    // optional: false is not optional either.
    const explicit = await sendCallsError(
      t,
      batch(undelegated, [{ to: storeA, value: '0x0' }], { capabilities: { fancyPaymaster: { optional: false } } }),
    )
    expect(explicit.code).toBe(5700)
  })

  it('an unknown per-call capability without optional: true → 5700', async () => {
    const error = await sendCallsError(
      t,
      batch(undelegated, [{ to: storeA, value: '0x0' }, storeSet(storeA, 1n, { capabilities: { fancyHook: { value: 1 } } })], {
        atomicRequired: false,
      }),
    )
    expect(error.code).toBe(5700)
    expect(error.message).toContain(MESSAGES.unsupportedCapability)
  })

  it('unknown capabilities marked optional: true are ignored and the batch succeeds', async () => {
    const result = await sendCalls(
      t,
      batch(sequentialUser, [storeSet(storeC, 77n, { capabilities: { fancyHook: { optional: true, value: 1 } } })], {
        atomicRequired: false,
        capabilities: { fancyPaymaster: { optional: true, url: 'https://x.example' } },
      }),
    )
    await t.mine()
    expect((await callsStatus(t, result.id)).status).toBe(200)
    expect(await readStore(t, storeC)).toBe(77n)
  })
})

describe('wallet_sendCalls: batch too large (5740)', () => {
  it('more calls than the default max batch size (100)', async () => {
    for (const atomicRequired of [true, false]) {
      const error = await sendCallsError(t, batch(undelegated, manyCalls(101), { atomicRequired }))
      expect(error.code).toBe(5740)
      expect(error.message).toContain(MESSAGES.tooLarge)
    }
  })

  it('an atomic batch whose gas exceeds what one transaction may carry (2^24 under Osaka)', async () => {
    const half = { capabilities: { gasLimitOverride: { value: '0x800001' } } }
    let error = await sendCallsError(t, batch(undelegated, [storeSet(storeA, 1n, half), storeSet(storeB, 1n, half)]))
    expect(error.code).toBe(5740)
    expect(error.message).toContain(MESSAGES.tooLarge)
    // One call at the block gas limit passes the schema (≤ 30,000,000) but not the transaction cap.
    error = await sendCallsError(t, batch(undelegated, [storeSet(storeA, 1n, { capabilities: { gasLimitOverride: { value: '0x1c9c380' } } })]))
    expect(error.code).toBe(5740)
  })

  it('a non-atomic batch whose total gas exceeds what one block can carry (30,000,000)', async () => {
    const big = { capabilities: { gasLimitOverride: { value: '0xb00000' } } } // 11,534,336 each, 34.6M in all
    const error = await sendCallsError(
      t,
      batch(undelegated, [storeSet(storeA, 1n, big), storeSet(storeB, 1n, big), storeSet(storeC, 1n, big)], { atomicRequired: false }),
    )
    expect(error.code).toBe(5740)
    expect(error.message).toContain(MESSAGES.tooLarge)
  })
})

describe('wallet_sendCalls: EIP-7702 delegation to a contract other than the executor (5750)', () => {
  it('an account delegated elsewhere by its own type-4 transaction gets 5750 for an atomic batch', async () => {
    const wallet = t.wallet(3)
    const authorization = await wallet.signAuthorization({ contractAddress: storeC, executor: 'self' })
    // Sent to another address, so that Store's code (no fallback) does not run; the authorization applies anyway.
    const hash = await wallet.sendTransaction({ authorizationList: [authorization], to: NOT_A_WALLET_ACCOUNT, gas: 100_000n })
    await t.mine()
    expect((await t.publicClient.getTransactionReceipt({ hash })).status).toBe('success')
    expect(await t.rpc('eth_getCode', [delegatedElsewhere, 'latest'])).toBe(`0xef0100${storeC.slice(2)}`)

    const error = await sendCallsError(t, batch(delegatedElsewhere, [storeSet(storeA, 5n)]))
    expect(error.code).toBe(5750)
    expect(error.message).toContain(MESSAGES.upgradeRejected)
    expect(await t.rpc('eth_getCode', [delegatedElsewhere, 'pending'])).toBe(`0xef0100${storeC.slice(2)}`)
  })
})

describe('wallet_sendCalls: approval policy', () => {
  it('approval rejected → 4001 "User rejected the request", and nothing is sent', async () => {
    const before = await t.rpc<Hex>('eth_getTransactionCount', [undelegated, 'pending'])
    await setPolicy(t, { default: 'reject' })
    try {
      const error = await sendCallsError(t, batch(undelegated, [storeSet(storeA, 9n)], { atomicRequired: false }))
      expect(error.code).toBe(4001)
      expect(error.message).toContain(MESSAGES.rejected)
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
    expect(await t.rpc('eth_getTransactionCount', [undelegated, 'pending'])).toBe(before)
  })

  it('upgrade prompt rejected for an account not yet delegated → 5750, and the account stays undelegated', async () => {
    await setPolicy(t, { default: 'approve', methods: { upgrade: 'reject' } })
    try {
      const error = await sendCallsError(t, batch(undelegated, [storeSet(storeA, 9n)]))
      expect(error.code).toBe(5750)
      expect(error.message).toContain(MESSAGES.upgradeRejected)
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
    expect(await t.rpc('eth_getCode', [undelegated, 'pending'])).toBe('0x')
  })
})

describe('wallet_sendCalls: validation order', () => {
  it('schema (1) before version (2)', async () => {
    const error = await sendCallsError(t, { ...batch(undelegated, [{ to: storeA }], { version: '1.0.0' }), chainId: '0x07a69' })
    expect(error.code).toBe(-32602)
  })

  it('version (2) before authorization (3)', async () => {
    expect((await sendCallsError(t, batch(NOT_A_WALLET_ACCOUNT, [{ to: storeA }], { version: '1.0.0' }))).code).toBe(-32000)
  })

  it('authorization (3) before chain id (4)', async () => {
    expect((await sendCallsError(t, batch(NOT_A_WALLET_ACCOUNT, [{ to: storeA }], { chainId: '0x1' }))).code).toBe(4100)
  })

  it('chain id (4) before capabilities (5)', async () => {
    const error = await sendCallsError(t, batch(undelegated, [{ to: storeA }], { chainId: '0x1', capabilities: { fancy: {} } }))
    expect(error.code).toBe(-32602)
    expect(error.message).toContain("Chain ID must match the wallet's selected network")
  })

  it('capabilities (5) before size (6)', async () => {
    expect((await sendCallsError(t, batch(undelegated, manyCalls(101), { capabilities: { fancy: {} } }))).code).toBe(5700)
  })

  it('size (6) before duplicate id (7), duplicate id (7) before approval (9), approval (9) before the upgrade prompt', async () => {
    const id = `0x${'0d'.repeat(32)}`
    await sendCalls(t, batch(undelegated, [{ to: NOT_A_WALLET_ACCOUNT, value: '0x1' }], { id, atomicRequired: false }))
    await t.mine()
    expect((await callsStatus(t, id)).status).toBe(200)

    expect((await sendCallsError(t, batch(undelegated, manyCalls(101), { id }))).code).toBe(5740)
    await setPolicy(t, { default: 'reject', methods: { upgrade: 'reject' } })
    try {
      expect((await sendCallsError(t, batch(undelegated, [storeSet(storeA, 3n)], { id }))).code).toBe(5720)
      // Both prompts would say no: the request's own is asked first.
      expect((await sendCallsError(t, batch(undelegated, [storeSet(storeA, 3n)], { id: `0x${'0e'.repeat(32)}` }))).code).toBe(4001)
      await setPolicy(t, { default: 'approve', methods: { upgrade: 'reject' } })
      expect((await sendCallsError(t, batch(undelegated, [storeSet(storeA, 3n)], { id: `0x${'0e'.repeat(32)}` }))).code).toBe(5750)
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
  })
})

describe('wallet_sendCalls: atomic execution', () => {
  const recipient = '0x00000000000000000000000000000000000b0b01'

  it('a first atomic batch: status 100 until sealed, then 200; one type-4 transaction to itself with the upgrade; every effect applied', async () => {
    expect(await t.rpc('eth_getCode', [atomicUser, 'latest'])).toBe('0x')
    const result = await sendCalls(t, batch(atomicUser, [storeSet(storeA, 41n), { to: recipient, value: toHex(10n ** 18n) }, storeSet(storeB, 42n)]))
    expect(result.status).toBe('pending')
    expect(result.batchId).toBe(result.id)

    // Queryable the moment sendCalls returns, and still 100 once pre-confirmed but not sealed.
    let status = await callsStatus(t, result.id)
    expect(status).toMatchObject({ version: '2.0.0', id: result.id, chainId: CHAIN_ID, status: 100, atomic: true })
    await t.preconfirm()
    expect((await callsStatus(t, result.id)).status).toBe(100)

    const head = await t.mine()
    status = await callsStatus(t, result.id)
    expect(status).toMatchObject({ version: '2.0.0', id: result.id, chainId: CHAIN_ID, status: 200, atomic: true })
    expect(status.receipts).toHaveLength(1)
    const receipt = status.receipts![0]!
    expect(checkReceipt(receipt)).toEqual([])
    expect(receipt.status).toBe('0x1')
    expect(BigInt(receipt.blockNumber)).toBe(head)

    // Both stores' events, in call order, emitted with msg.sender = the account itself.
    const byAccount = pad(atomicUser.toLowerCase() as Hex)
    expect(receipt.logs.map((log) => ({ address: log.address.toLowerCase(), topics: log.topics }))).toEqual([
      { address: storeA, topics: [VALUE_SET, word(41n), byAccount] },
      { address: storeB, topics: [VALUE_SET, word(42n), byAccount] },
    ])

    expect(await readStore(t, storeA)).toBe(41n)
    expect(await readStore(t, storeB)).toBe(42n)
    expect(await t.rpc('eth_getBalance', [recipient, 'latest'])).toBe(toHex(10n ** 18n))
    expect(await t.rpc('eth_getCode', [atomicUser, 'latest'])).toBe(EXECUTOR_DESIGNATOR)

    const tx = await t.rpc<{ type: Hex; from: Hex; to: Hex; input: Hex; authorizationList?: { address: Hex }[] }>('eth_getTransactionByHash', [
      receipt.transactionHash,
    ])
    expect(tx.type).toBe('0x4')
    expect(tx.from.toLowerCase()).toBe(atomicUser.toLowerCase())
    expect(tx.to.toLowerCase()).toBe(atomicUser.toLowerCase())
    expect(tx.input.startsWith(EXECUTE_SELECTOR)).toBe(true)
    expect(tx.authorizationList?.map((authorization) => authorization.address.toLowerCase())).toEqual([EXECUTOR])
  })

  it('a second atomic batch from the now delegated account carries no authorization and succeeds', async () => {
    const result = await sendCalls(t, batch(atomicUser, [storeSet(storeA, 43n), storeSet(storeB, 44n)]))
    await t.mine()
    const status = await callsStatus(t, result.id)
    expect(status).toMatchObject({ status: 200, atomic: true })
    expect(status.receipts).toHaveLength(1)
    const tx = await t.rpc<{ to: Hex; input: Hex; authorizationList?: unknown[] }>('eth_getTransactionByHash', [status.receipts![0]!.transactionHash])
    expect(tx.to.toLowerCase()).toBe(atomicUser.toLowerCase())
    expect(tx.input.startsWith(EXECUTE_SELECTOR)).toBe(true)
    expect(tx.authorizationList ?? []).toEqual([])
    expect([await readStore(t, storeA), await readStore(t, storeB)]).toEqual([43n, 44n])
    expect(await t.rpc('eth_getCode', [atomicUser, 'latest'])).toBe(EXECUTOR_DESIGNATOR)
  })

  it('one reverting call reverts the whole batch: nothing applied, status 500, atomic true', async () => {
    const result = await sendCalls(t, batch(atomicUser, [storeSet(storeA, 50n), revertingCall(reverter), storeSet(storeB, 51n)]))
    await t.mine()
    const status = await callsStatus(t, result.id)
    expect(status).toMatchObject({ status: 500, atomic: true })
    expect(status.receipts).toHaveLength(1)
    expect(status.receipts![0]!.status).toBe('0x0')
    expect(status.receipts![0]!.logs).toEqual([])
    expect([await readStore(t, storeA), await readStore(t, storeB)]).toEqual([43n, 44n])
  })

  it('a gasLimitOverride too small for its call reverts the whole atomic batch (500)', async () => {
    // Store.set over a non-zero value costs a 5,000-gas cold SSTORE (22,100 from zero); 3,000 cannot pay it.
    const result = await sendCalls(
      t,
      batch(atomicUser, [storeSet(storeB, 60n), storeSet(storeA, 61n, { capabilities: { gasLimitOverride: { value: toHex(3_000) } } })]),
    )
    await t.mine()
    const status = await callsStatus(t, result.id)
    expect(status).toMatchObject({ status: 500, atomic: true })
    expect([await readStore(t, storeA), await readStore(t, storeB)]).toEqual([43n, 44n])
  })

  it('a sufficient gasLimitOverride lets the atomic batch succeed (200)', async () => {
    const result = await sendCalls(
      t,
      batch(atomicUser, [storeSet(storeA, 62n, { capabilities: { gasLimitOverride: { value: toHex(100_000) } } }), storeSet(storeB, 63n)]),
    )
    await t.mine()
    expect((await callsStatus(t, result.id)).status).toBe(200)
    expect([await readStore(t, storeA), await readStore(t, storeB)]).toEqual([62n, 63n])
  })

  it('an atomic call to the zero address is refused naming the call: ERC-7821 reads it as the account itself', async () => {
    const error = await sendCallsError(
      t,
      batch(atomicUser, [{ to: '0x0000000000000000000000000000000000000000', data: '0x12345678' }, storeSet(storeA, 64n)]),
    )
    expect(error).toMatchObject({
      code: -32602,
      message: 'invalid argument 0: calls.0.to: an atomic batch cannot call the zero address (ERC-7821 reads it as the account itself)',
    })
  })

  it('a non-atomic call to the zero address goes to the zero address', async () => {
    const result = await sendCalls(t, {
      ...batch(atomicUser, [{ to: '0x0000000000000000000000000000000000000000', data: '0x12345678' }, storeSet(storeA, 64n)]),
      atomicRequired: false,
    })
    await t.mine()
    expect((await callsStatus(t, result.id)).status).toBe(200)
    expect(await readStore(t, storeA)).toBe(64n)
  })

  it('a generous gasLimitOverride is a cap, not what the call costs: 3,000,000 for a Store.set → 200', async () => {
    const result = await sendCalls(t, batch(atomicUser, [storeSet(storeA, 65n, { capabilities: { gasLimitOverride: { value: toHex(3_000_000) } } })]))
    await t.mine()
    const status = await callsStatus(t, result.id)
    expect(status.status).toBe(200)
    expect(BigInt(status.receipts![0]!.gasUsed)).toBeLessThan(200_000n)
    expect(await readStore(t, storeA)).toBe(65n)
  })

  it('a call that depends on an earlier call of the batch (Gate.enable then Gate.bump) → 200', async () => {
    const result = await sendCalls(t, batch(atomicUser, [gateCall(gateA, 'enable'), gateCall(gateA, 'bump')]))
    await t.mine()
    expect((await callsStatus(t, result.id)).status).toBe(200)
    expect(await t.publicClient.readContract({ address: gateA, abi: Gate.abi, functionName: 'count' })).toBe(1n)
  })

  it('a batch of exactly 100 calls (the default maximum) is accepted', async () => {
    const result = await sendCalls(t, batch(atomicUser, manyCalls(100)))
    await t.mine()
    expect((await callsStatus(t, result.id)).status).toBe(200)
  })
})

describe('wallet_sendCalls: non-atomic execution', () => {
  it('one transaction per call, in order; a reverting call fails alone → 600, atomic false', async () => {
    const result = await sendCalls(
      t,
      batch(sequentialUser, [storeSet(storeA, 70n), revertingCall(reverter), storeSet(storeB, 71n)], { atomicRequired: false }),
    )
    expect((await callsStatus(t, result.id)).status).toBe(100)
    await t.mine()
    const status = await callsStatus(t, result.id)
    expect(status).toMatchObject({ version: '2.0.0', id: result.id, chainId: CHAIN_ID, status: 600, atomic: false })
    expect(status.receipts!.map((receipt) => receipt.status)).toEqual(['0x1', '0x0', '0x1'])
    for (const receipt of status.receipts!) expect(checkReceipt(receipt)).toEqual([])

    // Chain order, one per call, each from the account to the call's target.
    const txs = await Promise.all(
      status.receipts!.map((receipt) =>
        t.rpc<{ from: Hex; to: Hex; nonce: Hex; blockNumber: Hex; transactionIndex: Hex }>('eth_getTransactionByHash', [receipt.transactionHash]),
      ),
    )
    expect(txs.map((tx) => tx.to.toLowerCase())).toEqual([storeA, reverter, storeB])
    expect(txs.every((tx) => tx.from.toLowerCase() === sequentialUser.toLowerCase())).toBe(true)
    const order = txs.map((tx) => BigInt(tx.blockNumber) * 1_000_000n + BigInt(tx.transactionIndex))
    expect([...order].sort((a, b) => (a < b ? -1 : 1))).toEqual(order)
    expect(txs.map((tx) => BigInt(tx.nonce) - BigInt(txs[0]!.nonce))).toEqual([0n, 1n, 2n])

    expect([await readStore(t, storeA), await readStore(t, storeB)]).toEqual([70n, 71n])
    // Non-atomic batches do not upgrade the account.
    expect(await t.rpc('eth_getCode', [sequentialUser, 'latest'])).toBe('0x')
  })

  it('each call is estimated on the state the previous calls leave (Gate.enable then Gate.bump) → 200', async () => {
    const result = await sendCalls(
      t,
      batch(sequentialUser, [gateCall(gateB, 'enable'), gateCall(gateB, 'bump'), gateCall(gateB, 'bump')], { atomicRequired: false }),
    )
    await t.mine()
    const status = await callsStatus(t, result.id)
    expect(status).toMatchObject({ status: 200, atomic: false })
    expect(status.receipts!.map((receipt) => receipt.status)).toEqual(['0x1', '0x1', '0x1'])
    expect(await t.publicClient.readContract({ address: gateB, abi: Gate.abi, functionName: 'count' })).toBe(2n)
  })

  it('every call reverting → 500', async () => {
    const result = await sendCalls(t, batch(sequentialUser, [revertingCall(reverter), revertingCall(reverter)], { atomicRequired: false }))
    await t.mine()
    const status = await callsStatus(t, result.id)
    expect(status).toMatchObject({ status: 500, atomic: false })
    expect(status.receipts!.map((receipt) => receipt.status)).toEqual(['0x0', '0x0'])
  })

  it('every call succeeding → 200; a call without value sends 0; a value transfer arrives', async () => {
    const recipient = '0x00000000000000000000000000000000000b0b02'
    const result = await sendCalls(t, batch(sequentialUser, [storeSet(storeC, 80n), { to: recipient, value: '0x2a' }], { atomicRequired: false }))
    await t.mine()
    const status = await callsStatus(t, result.id)
    expect(status).toMatchObject({ status: 200, atomic: false })
    expect(status.receipts).toHaveLength(2)
    const first = await t.rpc<{ value: Hex }>('eth_getTransactionByHash', [status.receipts![0]!.transactionHash])
    expect(first.value).toBe('0x0')
    expect(await readStore(t, storeC)).toBe(80n)
    expect(await t.rpc('eth_getBalance', [recipient, 'latest'])).toBe('0x2a')
  })

  it("a gasLimitOverride is the gas of that call's transaction; too small, that transaction fails alone → 600", async () => {
    // 23,000 covers the intrinsic gas of Store.set (21,510 with the EIP-7623 floor) but not its 5,000-gas SSTORE.
    const result = await sendCalls(
      t,
      batch(
        sequentialUser,
        [
          storeSet(storeA, 90n, { capabilities: { gasLimitOverride: { value: toHex(23_000) } } }),
          storeSet(storeB, 91n, { capabilities: { gasLimitOverride: { value: toHex(100_000) } } }),
        ],
        { atomicRequired: false },
      ),
    )
    await t.mine()
    const status = await callsStatus(t, result.id)
    expect(status).toMatchObject({ status: 600, atomic: false })
    expect(status.receipts!.map((receipt) => receipt.status)).toEqual(['0x0', '0x1'])
    const gas = await Promise.all(
      status.receipts!.map(async (receipt) => (await t.rpc<{ gas: Hex }>('eth_getTransactionByHash', [receipt.transactionHash])).gas),
    )
    expect(gas).toEqual([toHex(23_000), toHex(100_000)])
    expect([await readStore(t, storeA), await readStore(t, storeB)]).toEqual([70n, 91n])
  })
})

describe('wallet_sendCalls: ids and wallet_getCallsStatus', () => {
  it("a minted id: 32 random bytes as hex, id === batchId, never viem's fallback marker", async () => {
    const first = await sendCalls(t, batch(idUser, [{ to: NOT_A_WALLET_ACCOUNT, value: '0x1' }], { atomicRequired: false }))
    const second = await sendCalls(t, batch(idUser, [{ to: NOT_A_WALLET_ACCOUNT, value: '0x1' }], { atomicRequired: false }))
    for (const result of [first, second]) {
      expect(Object.keys(result).sort()).toEqual(['batchId', 'id', 'status'])
      expect(result.id).toMatch(/^0x[0-9a-f]{64}$/)
      expect(result.batchId).toBe(result.id)
      expect(result.status).toBe('pending')
      expect(result.id.endsWith(VIEM_FALLBACK_MARKER.slice(2))).toBe(false)
    }
    expect(first.id).not.toBe(second.id)
    await t.mine()
    expect((await callsStatus(t, first.id)).status).toBe(200)
    expect((await callsStatus(t, second.id)).status).toBe(200)
  })

  it('an app-supplied id is kept and the batch is queryable under it', async () => {
    const id = `0x${'a1'.repeat(32)}`
    const result = await sendCalls(t, batch(idUser, [storeSet(storeC, 100n)], { id }))
    expect(result).toEqual({ id, batchId: id, status: 'pending' })
    expect((await callsStatus(t, id)).status).toBe(100)
    await t.mine()
    const status = await callsStatus(t, id)
    expect(status).toMatchObject({ id, status: 200, atomic: true })
  })

  it('the same id again from the same sender → 5720, pending or sealed', async () => {
    const id = `0x${'b2'.repeat(32)}`
    await sendCalls(t, batch(idUser, [storeSet(storeC, 101n)], { id }))
    let error = await sendCallsError(t, batch(idUser, [storeSet(storeC, 102n)], { id }))
    expect(error.code).toBe(5720)
    expect(error.message).toContain(MESSAGES.duplicateId)
    await t.mine()
    error = await sendCallsError(t, batch(idUser, [storeSet(storeC, 103n)], { id, atomicRequired: false }))
    expect(error.code).toBe(5720)
    expect(await readStore(t, storeC)).toBe(101n)
  })

  it('the sender is the same account whatever the case of from: a duplicate id in another case is still 5720', async () => {
    const id = `0x${'b3'.repeat(32)}`
    await sendCalls(t, batch(idUser.toLowerCase(), [storeSet(storeC, 104n)], { id }))
    const error = await sendCallsError(t, batch(idUser, [storeSet(storeC, 105n)], { id }))
    expect(error.code).toBe(5720)
    await t.mine()
    expect(await readStore(t, storeC)).toBe(104n)
  })

  it('a batch whose transaction can never be included (its nonce taken by a replacement) → 400', async () => {
    const result = await sendCalls(t, batch(replacedUser, [storeSet(storeC, 300n), storeSet(storeB, 301n)]))
    expect((await callsStatus(t, result.id)).status).toBe(100)
    // The account's own key signs another transaction with the same nonce and a far higher fee: it replaces the
    // wallet's in the pool, so the batch's transaction can never be included.
    const replacement = await t.accounts[6]!.signTransaction({
      type: 'eip1559',
      chainId: 31337,
      nonce: 0,
      to: NOT_A_WALLET_ACCOUNT,
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: parseGwei('5000'),
      maxPriorityFeePerGas: parseGwei('5000'),
    })
    const hash = await t.rpc<Hex>('eth_sendRawTransaction', [replacement])
    await t.mine()
    expect((await t.publicClient.getTransactionReceipt({ hash })).status).toBe('success')
    const status = await callsStatus(t, result.id)
    expect(status).toMatchObject({ id: result.id, status: 400 })
    expect(status.receipts ?? []).toEqual([])
    expect(await readStore(t, storeB)).not.toBe(301n)
  })

  it('an unknown id → 5730', async () => {
    expect((await t.rpcError('wallet_getCallsStatus', [`0x${'ee'.repeat(32)}`])).code).toBe(5730)
  })
})

describe('wallet_sendCalls: several batches before a block seals, concurrency, and the maxBatchSize option', () => {
  it("back to back from a fresh account, no block in between: the upgrade's authorization nonce is not reused; one seal completes all (200)", async () => {
    // The first batch's type-4 transaction has nonce n and its authorization nonce n + 1: both are consumed when it
    // runs, so the next batch must start at n + 2.
    const first = await sendCalls(t, batch(backToBackUser, [storeSet(storeC, 500n)]))
    const second = await sendCalls(t, batch(backToBackUser, [{ to: NOT_A_WALLET_ACCOUNT, value: '0x1' }], { atomicRequired: false }))
    const third = await sendCalls(t, batch(backToBackUser, [storeSet(storeC, 501n), { to: NOT_A_WALLET_ACCOUNT, value: '0x2' }]))
    await t.mine()
    const statuses = await Promise.all([first, second, third].map(async (result) => (await callsStatus(t, result.id)).status))
    expect(statuses).toEqual([200, 200, 200])
    expect(await readStore(t, storeC)).toBe(501n)
    expect(await t.rpc('eth_getCode', [backToBackUser, 'latest'])).toBe(EXECUTOR_DESIGNATOR)
  })

  it("eth_sendTransaction right after an upgrading atomic batch, before a seal: it does not reuse the authorization's nonce", async () => {
    // Dev account 9 deployed the fixtures (all sealed) and was never delegated.
    const from = t.accounts[9]!.address
    expect(await t.rpc('eth_getCode', [from, 'latest'])).toBe('0x')
    const result = await sendCalls(t, batch(from, [{ to: NOT_A_WALLET_ACCOUNT, value: '0x1' }]))
    const hash = await t.rpc<Hex>('eth_sendTransaction', [{ from, to: NOT_A_WALLET_ACCOUNT, value: '0x2' }])
    await t.mine()
    expect((await callsStatus(t, result.id)).status).toBe(200)
    expect(await t.rpc('eth_getTransactionReceipt', [hash])).toMatchObject({ status: '0x1' })
  })

  it('batches sent concurrently from one fresh account (atomic and not) all complete (nonces do not collide)', async () => {
    const results = await Promise.all([
      sendCalls(t, batch(concurrentUser, [storeSet(storeC, 400n)])),
      sendCalls(
        t,
        batch(
          concurrentUser,
          [
            { to: NOT_A_WALLET_ACCOUNT, value: '0x1' },
            { to: NOT_A_WALLET_ACCOUNT, value: '0x2' },
          ],
          { atomicRequired: false },
        ),
      ),
      sendCalls(t, batch(concurrentUser, [storeSet(storeC, 401n), { to: NOT_A_WALLET_ACCOUNT, value: '0x3' }])),
    ])
    expect(new Set(results.map((result) => result.id)).size).toBe(3)
    await t.mine()
    for (const result of results) expect((await callsStatus(t, result.id)).status, result.id).toBe(200)
    expect(await t.rpc('eth_getCode', [concurrentUser, 'latest'])).toBe(EXECUTOR_DESIGNATOR)
  })

  it('a server started with maxBatchSize: 2 accepts 2 calls and answers 5740 for 3', async () => {
    const small = await startWallet({ maxBatchSize: 2 })
    try {
      const from = small.accounts[0]!.address
      const call = { to: NOT_A_WALLET_ACCOUNT, value: '0x1' }
      const error = await small.rpcError('wallet_sendCalls', [batch(from, [call, call, call], { atomicRequired: false })])
      expect(error.code).toBe(5740)
      expect(error.message).toContain(MESSAGES.tooLarge)
      const result = await small.rpc<{ id: string }>('wallet_sendCalls', [batch(from, [call, call])])
      await small.mine()
      expect((await small.rpc<{ status: number }>('wallet_getCallsStatus', [result.id])).status).toBe(200)
    } finally {
      await small.close()
    }
  })
})

describe('viem sendCalls and waitForCallsStatus against the server', () => {
  it('a JSON-RPC account: viem sends wallet_sendCalls, and waitForCallsStatus resolves once the block is sealed', async () => {
    const client = createWalletClient({ chain: t.chain, transport: http(t.url, { retryCount: 0 }), account: viemUser })
    const { id } = await client.sendCalls({
      calls: [
        { to: storeA, abi: Store.abi, functionName: 'set', args: [200n] },
        { to: '0x00000000000000000000000000000000000b0b03', value: 5n },
      ],
    })
    expect(id).toMatch(/^0x[0-9a-f]{64}$/)

    const waiting = client.waitForCallsStatus({ id, pollingInterval: 20, timeout: 5000 })
    expect((await client.getCallsStatus({ id })).status).toBe('pending')
    await t.mine()
    const result = await waiting
    expect(result.status).toBe('success')
    expect(result.statusCode).toBe(200)
    expect(result.atomic).toBe(false)
    expect(result.chainId).toBe(31337)
    expect(result.receipts?.map((receipt) => receipt.status)).toEqual(['success', 'success'])
    expect(await readStore(t, storeA)).toBe(200n)
  })

  it('forceAtomic with an app id: one receipt, atomic true; a reverting batch surfaces as failure (500)', async () => {
    const client = createWalletClient({ chain: t.chain, transport: http(t.url, { retryCount: 0 }), account: viemUser })
    const id = `0x${'c3'.repeat(32)}`
    const sent = await client.sendCalls({
      id,
      forceAtomic: true,
      calls: [
        { to: storeA, abi: Store.abi, functionName: 'set', args: [201n] },
        { to: storeB, abi: Store.abi, functionName: 'set', args: [202n] },
      ],
    })
    expect(sent.id).toBe(id)
    const waiting = client.waitForCallsStatus({ id, pollingInterval: 20, timeout: 5000 })
    await t.mine()
    const result = await waiting
    expect(result).toMatchObject({ status: 'success', statusCode: 200, atomic: true })
    expect(result.receipts).toHaveLength(1)
    expect(await t.rpc('eth_getCode', [viemUser, 'latest'])).toBe(EXECUTOR_DESIGNATOR)

    const failing = await client.sendCalls({
      forceAtomic: true,
      calls: [
        { to: storeA, abi: Store.abi, functionName: 'set', args: [203n] },
        { to: reverter, data: encodeFunctionData({ abi: Reverter.abi, functionName: 'nope' }) },
      ],
    })
    const waitingFailure = client.waitForCallsStatus({ id: failing.id, pollingInterval: 20, timeout: 5000 })
    await t.mine()
    const failure = await waitingFailure
    expect(failure).toMatchObject({ status: 'failure', statusCode: 500, atomic: true })
    expect(await readStore(t, storeA)).toBe(201n)
  })
})
