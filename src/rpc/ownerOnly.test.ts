// Who may call what. Every method of the registry declares its access (public, grant or owner) and dispatch enforces
// it; the registry is walked here: each owner method refuses a foreign origin and changes nothing, each grant method
// gives an origin without a grant nothing of the wallet's, each public method answers it. On a non-loopback bind, the
// owner also needs the wallet token: tests bind only to 127.0.0.1, so the methods are dispatched here with the wallet
// told it is not on a loopback bind.
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { z } from 'zod'

import { createChain } from '../chain/chain.ts'
import { openDatabase } from '../chain/storage/database.ts'
import { createWallet } from '../wallet/wallet.ts'
import { createDispatcher } from './dispatch.ts'
import { createFilters } from './filters.ts'
import { ACCESS, createRegistry } from './method.ts'
import { methods } from './methods.ts'

import type { Chain } from '../chain/chain.ts'
import type { Wallet } from '../wallet/wallet.ts'
import type { Access, Method, RequestContext } from './method.ts'

const TOKEN = 'a-wallet-token'
let chain: Chain
let wallet: Wallet
let dispatch: ReturnType<typeof createDispatcher>

beforeAll(async () => {
  const database = openDatabase({})
  chain = await createChain({ database, mining: 'manual', workers: 0 })
  wallet = createWallet({
    chain,
    database,
    accounts: chain.spec.accounts,
    approval: 'approve',
    approvalTimeout: 1000,
    walletToken: TOKEN,
    loopback: false,
    maxBatchSize: 10,
    log: () => {},
  })
  chain.control.participate(wallet.testControl)
  const filters = createFilters(chain)
  dispatch = createDispatcher({
    methods,
    context: (request) => ({
      ...chain,
      wallet,
      node: { setLogging: () => {}, projectAbis: [], defaultBlock: 'latest', maxMineBlocks: 10_000n },
      filters,
      request,
    }),
    maxBatchLength: 10,
    revertCode: chain.spec.revertCode,
  })
})

afterAll(async () => {
  wallet?.close()
  await chain?.close()
})

async function call(method: string, params: unknown[], request: RequestContext) {
  return (await dispatch({ jsonrpc: '2.0', id: 1, method, params }, request)) as { result?: unknown; error?: { code: number } }
}

/** Methods that change the chain without a signed transaction, with params that would succeed for the owner. */
const changing: [string, unknown[]][] = [
  ['evm_mine', []],
  ['flashchain_preconfirm', []],
  ['anvil_mine', ['0x1']],
  ['evm_snapshot', []],
  ['anvil_setBalance', [`0x${'11'.repeat(20)}`, '0x1']],
  ['evm_increaseTime', ['0x1']],
  ['evm_setBlockGasLimit', ['0x1c9c380']],
  ['anvil_impersonateAccount', [`0x${'11'.repeat(20)}`]],
  ['anvil_dropAllTransactions', []],
]

describe('on a non-loopback bind', () => {
  test.each(changing)('%s: 4100 without the token, with a wrong one, or from a browser origin', async (method, params) => {
    const head = chain.blocks.head().header.number
    for (const request of [
      { origin: undefined, authorization: undefined },
      { origin: undefined, authorization: 'Bearer wrong' },
      { origin: undefined, authorization: `Bearer ${TOKEN}x` },
      { origin: 'https://dapp.example', authorization: `Bearer ${TOKEN}` },
    ]) {
      expect((await call(method, params, request)).error?.code).toBe(4100)
    }
    expect(chain.blocks.head().header.number).toBe(head)
  })

  test.each(changing)('%s: answers the owner, whatever the case of the bearer scheme', async (method, params) => {
    for (const authorization of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER  ${TOKEN}`]) {
      const response = await call(method, params, { origin: undefined, authorization })
      expect(response.error).toBeUndefined()
    }
  })
})

/** The wallet's admin methods, which the console page reads and edits the wallet with. */
const walletAdmin: [string, unknown[]][] = [
  ['flashchain_getApprovalPolicy', []],
  ['flashchain_setApprovalPolicy', [{ default: 'approve' }]],
  ['flashchain_getPendingApprovals', []],
  ['flashchain_getBatches', [{ limit: 5 }]],
  ['flashchain_getGrants', []],
  ['flashchain_revokeGrant', ['https://dapp.example']],
  ['flashchain_getWatchedAssets', []],
  ['flashchain_setAtomicStatus', [`0x${'11'.repeat(20)}`, 'unsupported']],
  ['flashchain_getAbi', []],
]

describe('the wallet’s admin methods on a non-loopback bind', () => {
  test.each(walletAdmin)('%s: 4100 without the token, and answered with it', async (method, params) => {
    for (const request of [
      { origin: undefined, authorization: undefined },
      { origin: undefined, authorization: 'Bearer wrong' },
      { origin: 'https://dapp.example', authorization: `Bearer ${TOKEN}` },
    ]) {
      expect((await call(method, params, request)).error?.code).toBe(4100)
    }
    expect((await call(method, params, { origin: undefined, authorization: `Bearer ${TOKEN}` })).error).toBeUndefined()
  })
})

describe('testing_buildBlockV1 on a non-loopback bind', () => {
  test('4100 without the token or from a browser origin; built for the owner', async () => {
    const head = chain.blocks.head()
    const params = [
      head.hash,
      {
        timestamp: `0x${(head.header.timestamp + 1n).toString(16)}`,
        prevRandao: `0x${'00'.repeat(32)}`,
        suggestedFeeRecipient: `0x${'00'.repeat(20)}`,
        withdrawals: [],
        parentBeaconBlockRoot: `0x${'00'.repeat(32)}`,
      },
      [],
    ]
    for (const request of [
      { origin: undefined, authorization: undefined },
      { origin: 'https://dapp.example', authorization: `Bearer ${TOKEN}` },
    ]) {
      expect((await call('testing_buildBlockV1', params, request)).error?.code).toBe(4100)
    }
    const built = (await call('testing_buildBlockV1', params, { origin: undefined, authorization: `Bearer ${TOKEN}` })) as {
      result?: { executionPayload: { parentHash: string } }
    }
    expect(built.result?.executionPayload.parentHash).toBe(head.hash)
  })
})

const account = `0x${'11'.repeat(20)}`
const slot = `0x${'00'.repeat(32)}`
const aSecondInMs = '0x3e8'
const callToAccount = { to: account }
const EVIL = 'http://evil.example'
const ADMIN_ONLY = 'The requested account and/or method has not been authorized by the user: admin methods are for the owner only'

/**
 * Params the schema of every owner method accepts, so that only its access refuses it. A method declared the
 * owner's without an entry here fails, as does an entry for a method that is not the owner's.
 */
const ownerParams: Record<string, unknown> = {
  evm_mine: [],
  evm_increaseTime: ['0x1'],
  evm_setNextBlockTimestamp: ['0xffffffff'],
  anvil_setNextBlockTimestamp: ['0xffffffff'],
  anvil_mine: ['0x1'],
  hardhat_mine: ['0x1'],
  evm_setAutomine: [true],
  anvil_setAutomine: [true],
  hardhat_getAutomine: [],
  anvil_getAutomine: [],
  anvil_setBalance: [account, '0x1'],
  hardhat_setBalance: [account, '0x1'],
  anvil_addBalance: [account, '0x1'],
  anvil_setCode: [account, '0x00'],
  hardhat_setCode: [account, '0x00'],
  anvil_setNonce: [account, '0x1'],
  hardhat_setNonce: [account, '0x1'],
  anvil_setStorageAt: [account, slot, slot],
  hardhat_setStorageAt: [account, slot, slot],
  evm_snapshot: [],
  anvil_snapshot: [],
  evm_revert: ['0x1'],
  anvil_revert: ['0x1'],
  anvil_reset: [],
  hardhat_reset: [],
  anvil_impersonateAccount: [account],
  hardhat_impersonateAccount: [account],
  anvil_stopImpersonatingAccount: [account],
  hardhat_stopImpersonatingAccount: [account],
  anvil_autoImpersonateAccount: [true],
  evm_setBlockGasLimit: ['0x1c9c380'],
  anvil_setNextBlockBaseFeePerGas: ['0x1'],
  hardhat_setNextBlockBaseFeePerGas: ['0x1'],
  anvil_setCoinbase: [account],
  hardhat_setCoinbase: [account],
  hardhat_setPrevRandao: [slot],
  anvil_setMinGasPrice: ['0x1'],
  hardhat_setMinGasPrice: ['0x1'],
  anvil_setBlockTimestampInterval: ['0x1'],
  hardhat_setBlockTimestampInterval: [aSecondInMs],
  anvil_removeBlockTimestampInterval: [],
  hardhat_removeBlockTimestampInterval: [],
  evm_setIntervalMining: [0],
  anvil_setIntervalMining: [0],
  anvil_dealERC20: [account, account, '0x1'],
  anvil_setERC20Balance: [account, account, '0x1'],
  hardhat_dealERC20: [account, account, '0x1'],
  anvil_setERC20Allowance: [account, account, account, '0x1'],
  anvil_dumpState: [],
  hardhat_dumpState: [],
  anvil_loadState: ['0x7b226163636f756e7473223a7b7d7d'],
  hardhat_loadState: ['0x7b226163636f756e7473223a7b7d7d'],
  anvil_setLoggingEnabled: [true],
  hardhat_setLoggingEnabled: [true],
  anvil_setRpcUrl: ['http://127.0.0.1:1'],
  hardhat_setRpcUrl: ['http://127.0.0.1:1'],
  anvil_metadata: [],
  hardhat_metadata: [],
  anvil_dropTransaction: [slot],
  hardhat_dropTransaction: [slot],
  anvil_dropAllTransactions: [],
  eth_sendUnsignedTransaction: [{ from: account, to: account }],
  testing_buildBlockV1: [slot, { timestamp: '0x1', prevRandao: slot, suggestedFeeRecipient: account, withdrawals: [] }, []],
  flashchain_preconfirm: [],
  flashchain_sendDeposit: [{ from: account, to: account, gas: '0x5208' }],
  flashchain_setL1Values: [{ l1BaseFee: '0x1' }],
  flashchain_getApprovalPolicy: [],
  flashchain_setApprovalPolicy: [{ default: 'reject' }],
  flashchain_getPendingApprovals: [],
  flashchain_resolveApproval: ['an-approval-id', 'approve'],
  flashchain_getBatches: [{ limit: 5 }],
  flashchain_getGrants: [],
  flashchain_revokeGrant: ['https://dapp.example'],
  flashchain_getWatchedAssets: [],
  flashchain_setAtomicStatus: [account, 'unsupported'],
  flashchain_getAbi: [],
}

/** The methods that change or read the node itself (README, "Test control"), which are the owner's but for these. */
const OWNER_NAMESPACE = /^(anvil|hardhat|evm|flashchain|testing)_/
/**
 * Public: anvil_nodeInfo as on anvil, telling nothing eth_ methods do not; flashchain_getFlashblocks, what the public
 * /flashblocks stream already sent, and flashchain_getUnsentEdits, what it will send next; flashchain_followStatus,
 * what a replica's public GET /health tells a load balancer.
 */
const PUBLIC_IN_OWNER_NAMESPACE = ['anvil_nodeInfo', 'flashchain_getFlashblocks', 'flashchain_getUnsentEdits', 'flashchain_followStatus']

/** Params for the public methods that need some; the others are called with none. */
const publicParams: Record<string, unknown> = {
  flashchain_getFlashblocks: ['0x1', 0],
  txpool_contentFrom: [account],
  debug_traceTransaction: [slot],
  debug_getRawTransaction: [slot],
  debug_getRawBlock: ['latest'],
  debug_traceBlockByNumber: ['latest'],
  debug_getRawReceipts: ['latest'],
  debug_getRawHeader: ['latest'],
  debug_traceCall: [callToAccount],
  debug_traceBlockByHash: [slot],
  eth_createAccessList: [callToAccount],
  eth_simulateV1: [{ blockStateCalls: [] }],
  eth_estimateGas: [callToAccount],
  eth_sendRawTransactionSync: ['0x00'],
  eth_getTransactionByBlockHashAndIndex: [slot, '0x0'],
  eth_call: [callToAccount],
  eth_getTransactionCount: [account],
  eth_getFilterChanges: ['0x01'],
  eth_uninstallFilter: ['0x01'],
  eth_getLogs: [{}],
  eth_unsubscribe: ['0x1'],
  eth_getStorageAt: [account, slot],
  eth_getTransactionReceipt: [slot],
  eth_subscribe: ['newHeads'],
  eth_getBlockByHash: [slot],
  eth_getStorageValues: [{ [account]: [slot] }],
  eth_newFilter: [{}],
  eth_getBlockByNumber: ['latest'],
  eth_getProof: [account, [], 'earliest'],
  eth_getCode: [account],
  eth_feeHistory: ['0x1', 'latest'],
  eth_getTransactionByBlockNumberAndIndex: ['latest', '0x0'],
  eth_getBalance: [account],
  eth_getBlockTransactionCountByNumber: ['latest'],
  eth_getFilterLogs: ['0x01'],
  eth_getBlockReceipts: ['latest'],
  eth_getBlockTransactionCountByHash: [slot],
  eth_sendRawTransaction: ['0x00'],
  eth_getTransactionByHash: [slot],
  wallet_switchEthereumChain: [{ chainId: '0x7a69' }],
  wallet_addEthereumChain: [{ chainId: '0x7a69' }],
  base_transactionStatus: [slot],
}

const notGranted = (address: string) => ({
  code: 4100,
  message: `The requested account and/or method has not been authorized by the user: ${EVIL} has not been granted ${address}; call eth_requestAccounts first`,
})
const rejected = { code: 4001, message: 'User rejected the request' }
const unknownBundle = { code: 5730, message: 'This bundle id is unknown / has not been submitted' }

/**
 * Every method that needs a grant, with params that name the wallet's first account (or the owner's batch), and what
 * it answers an origin that has none: a refusal, or none of the wallet's accounts. Every entry is exact, and a method
 * declared `grant` without one fails, as does an entry for a method that is not declared so.
 */
function grantCases(dev: string, batchId: string): Record<string, { params: unknown; answer: { result: unknown } | { error: object } }> {
  const refused = { error: notGranted(dev) }
  return {
    eth_accounts: { params: [], answer: { result: [] } },
    // The policy rejects a grant, as the user would: asking is what eth_requestAccounts does for a new origin.
    eth_requestAccounts: { params: [], answer: { error: rejected } },
    wallet_requestPermissions: { params: [{ eth_accounts: {} }], answer: { error: rejected } },
    wallet_getPermissions: { params: [], answer: { result: [] } },
    wallet_revokePermissions: { params: [{ eth_accounts: {} }], answer: { result: null } },
    eth_sendTransaction: { params: [{ from: dev, to: account }], answer: refused },
    eth_signTransaction: { params: [{ from: dev, to: account }], answer: refused },
    eth_sign: { params: [dev, slot], answer: refused },
    eth_signTypedData_v4: { params: [dev, '{}'], answer: refused },
    personal_sign: { params: ['0x68656c6c6f', dev], answer: refused },
    wallet_getCapabilities: { params: [dev], answer: refused },
    wallet_sendCalls: {
      params: [{ version: '2.0.0', from: dev, chainId: '0x7a69', atomicRequired: false, calls: [{ to: account }] }],
      answer: refused,
    },
    // The owner's batch is unknown to an origin without its account, as a batch never sent.
    wallet_getCallsStatus: { params: [batchId], answer: { error: unknownBundle } },
    wallet_showCallsStatus: { params: [batchId], answer: { error: unknownBundle } },
    wallet_watchAsset: {
      params: { type: 'ERC20', options: { address: account, symbol: 'TKN', decimals: 18 } },
      answer: { error: { code: 4100, message: 'The requested account and/or method has not been authorized by the user' } },
    },
  }
}

const declared = (access: Access) => methods.filter((method) => method.access === access).map((method) => method.name as string)
const registry = createRegistry(methods)

describe('every method declares who may call it', () => {
  test('public, grant or owner, each method of the registry', () => {
    expect(methods.filter((method) => !ACCESS.includes(method.access)).map((method) => method.name)).toEqual([])
  })

  test('the registry refuses a method that declares none', () => {
    const undeclared = { name: 'flashchain_undeclared', params: z.tuple([]), handler: () => null } as unknown as Method
    expect(() => createRegistry([undeclared])).toThrow('flashchain_undeclared does not declare who may call it (access)')
  })

  test('test control and the wallet’s admin methods are the owner’s, but for anvil_nodeInfo, flashchain_getFlashblocks, flashchain_getUnsentEdits and flashchain_followStatus', () => {
    const names = methods.map((method) => method.name as string).filter((name) => OWNER_NAMESPACE.test(name))
    expect(names.filter((name) => !PUBLIC_IN_OWNER_NAMESPACE.includes(name) && registry.get(name)?.access !== 'owner')).toEqual([])
    expect(PUBLIC_IN_OWNER_NAMESPACE.map((name) => registry.get(name)?.access)).toEqual(['public', 'public', 'public', 'public'])
  })

  test('the owner’s methods are those listed here with params, and the grant methods those with their answers', () => {
    expect(declared('owner').sort()).toEqual(Object.keys(ownerParams).sort())
    expect(declared('grant').sort()).toEqual(Object.keys(grantCases(account, '0x')).sort())
  })

  test('the params listed are ones each method’s schema accepts, so only access can refuse them', () => {
    const cases = {
      ...ownerParams,
      ...publicParams,
      ...Object.fromEntries(Object.entries(grantCases(account, '0x')).map(([name, { params }]) => [name, params])),
    }
    const refused = methods.filter((method) => !method.params.safeParse(cases[method.name] ?? []).success).map((method) => method.name)
    expect(refused).toEqual([])
  })
})

describe('each method from a browser origin, on a loopback bind', () => {
  let local: Wallet
  let dispatchLocal: ReturnType<typeof createDispatcher>
  let batchId: string

  const callFrom = async (origin: string | undefined, method: string, params: unknown) =>
    (await dispatchLocal({ jsonrpc: '2.0', id: 1, method, params }, { origin, authorization: undefined })) as {
      result?: unknown
      error?: { code: number; message: string }
    }

  beforeAll(async () => {
    local = createWallet({
      chain,
      database: openDatabase({}),
      accounts: chain.spec.accounts,
      approval: 'approve',
      approvalTimeout: 1000,
      walletToken: undefined,
      loopback: true,
      maxBatchSize: 10,
      enableEthSign: true,
      log: () => {},
    })
    local.approvals.setPolicy({ default: 'approve', methods: { eth_requestAccounts: 'reject' } })
    dispatchLocal = createDispatcher({
      methods,
      context: (request) => ({
        ...chain,
        wallet: local,
        node: { setLogging: () => {}, projectAbis: [], defaultBlock: 'latest', maxMineBlocks: 10_000n },
        filters: createFilters(chain),
        request,
      }),
      maxBatchLength: 10,
      revertCode: chain.spec.revertCode,
    })
    const sent = await callFrom(undefined, 'wallet_sendCalls', [
      { version: '2.0.0', from: chain.spec.accounts[0]!.address, chainId: '0x7a69', atomicRequired: false, calls: [{ to: account, value: '0x1' }] },
    ])
    batchId = (sent.result as { id: string }).id
  })

  afterAll(() => local?.close())

  /** What a refused call must leave as it was: the chain, its pool and mining, and the wallet's grants and impersonations. */
  const fingerprint = () =>
    JSON.stringify(
      {
        head: chain.blocks.head().hash,
        state: chain.state.dumpState(),
        pool: chain.pool.content(),
        mining: chain.producer.mining,
        snapshots: chain.control.snapshots(),
        grants: local.grants(),
        impersonation: local.impersonation.save(),
        policy: local.approvals.policy(),
      },
      (_, value) => (typeof value === 'bigint' ? `0x${value.toString(16)}` : value),
    )

  test.each(Object.keys(ownerParams))('%s (owner): 4100 for a foreign origin, with the chain and the wallet unchanged', async (method) => {
    const before = fingerprint()
    const response = await callFrom(EVIL, method, ownerParams[method])
    expect(response).toEqual({ jsonrpc: '2.0', id: 1, error: { code: 4100, message: ADMIN_ONLY } })
    expect(fingerprint()).toBe(before)
  })

  test('an owner method is refused before its params are read: 4100 for bad params, where the owner gets -32602', async () => {
    const params = ['not an address', '0x1']
    expect((await callFrom(EVIL, 'anvil_setBalance', params)).error).toEqual({ code: 4100, message: ADMIN_ONLY })
    expect((await callFrom(undefined, 'anvil_setBalance', params)).error?.code).toBe(-32602)
  })

  test('grant: the owner’s batch was sent, so its id is one a foreign origin must not see', () => {
    expect(batchId).toMatch(/^0x[0-9a-f]+$/)
  })

  test.each(Object.keys(grantCases(account, '0x')))('%s (grant): what an origin without a grant gets, and no grant given', async (method) => {
    const { params, answer } = grantCases(chain.spec.accounts[0]!.address.toLowerCase(), batchId)[method]!
    const before = fingerprint()
    expect(await callFrom(EVIL, method, params)).toEqual({ jsonrpc: '2.0', id: 1, ...answer })
    expect(fingerprint()).toBe(before)
  })

  test.each(declared('public'))('%s (public): answers a foreign origin', async (method) => {
    const response = await callFrom(EVIL, method, publicParams[method] ?? [])
    expect(response.error?.code).not.toBe(4100)
    expect(response.result !== undefined || response.error !== undefined).toBe(true)
  })

  test('anvil_nodeInfo answers a foreign origin what the owner gets, with no instance or snapshot id', async () => {
    await callFrom(undefined, 'evm_snapshot', [])
    const foreign = await callFrom(EVIL, 'anvil_nodeInfo', [])
    expect(foreign.result).toEqual((await callFrom(undefined, 'anvil_nodeInfo', [])).result)
    const text = JSON.stringify(foreign.result)
    expect(text).not.toContain(chain.control.instanceId.slice(2))
    expect(Object.keys(foreign.result as object).sort()).toEqual([
      'currentBlockHash',
      'currentBlockNumber',
      'currentBlockTimestamp',
      'environment',
      'forkConfig',
      'hardFork',
      'transactionOrder',
    ])
    expect((await callFrom(EVIL, 'web3_clientVersion', [])).result).toMatch(/flashchain\//)
  })
})
