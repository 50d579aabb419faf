// Who may change the chain beyond sending a transaction, on a non-loopback bind: the owner, with the wallet token.
// Tests bind only to 127.0.0.1, so the methods are dispatched here with the wallet told it is not on a loopback bind.
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

import { createChain } from '../chain/chain.ts'
import { openDatabase } from '../chain/storage/database.ts'
import { createWallet } from '../wallet/wallet.ts'
import { createDispatcher } from './dispatch.ts'
import { createFilters } from './filters.ts'
import { methods } from './methods.ts'

import type { Chain } from '../chain/chain.ts'
import type { Wallet } from '../wallet/wallet.ts'
import type { RequestContext } from './method.ts'

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
    accounts: chain.accounts,
    approval: 'approve',
    approvalTimeout: 1000,
    walletToken: TOKEN,
    loopback: false,
    maxBatchSize: 10,
    log: () => {},
  })
  const filters = createFilters(chain)
  dispatch = createDispatcher({
    methods,
    context: (request) => ({ chain, wallet, node: { setLogging: () => {}, projectAbis: [], defaultBlock: 'latest' }, filters, request }),
    maxBatchLength: 10,
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
    const head = chain.head().header.number
    for (const request of [
      { origin: undefined, authorization: undefined },
      { origin: undefined, authorization: 'Bearer wrong' },
      { origin: undefined, authorization: `Bearer ${TOKEN}x` },
      { origin: 'https://dapp.example', authorization: `Bearer ${TOKEN}` },
    ]) {
      expect((await call(method, params, request)).error?.code).toBe(4100)
    }
    expect(chain.head().header.number).toBe(head)
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
    const head = chain.head()
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

/**
 * Every test-control method (anvil_*, hardhat_*, evm_*), with params its schema accepts, so that only the owner rule
 * can refuse it. A method added without an entry here fails the first test: deciding who may call it is part of
 * adding it.
 */
const testControl: Record<string, unknown[]> = {
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
}

/** The one public test-control method, as on anvil: it tells nothing eth_ methods do not. */
const PUBLIC_TEST_CONTROL = ['anvil_nodeInfo']

describe('test-control methods from a browser origin, on a loopback bind', () => {
  let local: Wallet
  let dispatchLocal: ReturnType<typeof createDispatcher>

  beforeAll(() => {
    local = createWallet({
      chain,
      database: openDatabase({}),
      accounts: chain.accounts,
      approval: 'approve',
      approvalTimeout: 1000,
      walletToken: undefined,
      loopback: true,
      maxBatchSize: 10,
      log: () => {},
    })
    dispatchLocal = createDispatcher({
      methods,
      context: (request) => ({
        chain,
        wallet: local,
        node: { setLogging: () => {}, projectAbis: [], defaultBlock: 'latest' },
        filters: createFilters(chain),
        request,
      }),
      maxBatchLength: 10,
    })
  })

  afterAll(() => local?.close())

  const callFrom = async (origin: string | undefined, method: string, params: unknown[]) =>
    (await dispatchLocal({ jsonrpc: '2.0', id: 1, method, params }, { origin, authorization: undefined })) as {
      result?: unknown
      error?: { code: number; message: string }
    }

  test('every test-control method is listed, as public or owner-only', () => {
    const names = methods.map((method) => method.name as string).filter((name) => /^(anvil|hardhat|evm)_/.test(name))
    expect(names.filter((name) => !(name in testControl) && !PUBLIC_TEST_CONTROL.includes(name))).toEqual([])
  })

  test.each(Object.entries(testControl))('%s: 4100 for a foreign origin, and the chain unchanged', async (method, params) => {
    const head = chain.head().hash
    const response = await callFrom('http://evil.example', method, params)
    expect(response).toMatchObject({ error: { code: 4100, message: expect.stringContaining('admin methods are for the owner only') } })
    expect(response.result).toBeUndefined()
    expect(chain.head().hash).toBe(head)
  })

  test('anvil_nodeInfo answers a foreign origin what the owner gets, with no instance or snapshot id', async () => {
    await callFrom(undefined, 'evm_snapshot', [])
    const foreign = await callFrom('http://evil.example', 'anvil_nodeInfo', [])
    expect(foreign.result).toEqual((await callFrom(undefined, 'anvil_nodeInfo', [])).result)
    const text = JSON.stringify(foreign.result)
    expect(text).not.toContain(chain.instanceId.slice(2))
    expect(Object.keys(foreign.result as object).sort()).toEqual([
      'currentBlockHash',
      'currentBlockNumber',
      'currentBlockTimestamp',
      'environment',
      'forkConfig',
      'hardFork',
      'transactionOrder',
    ])
    expect((await callFrom('http://evil.example', 'web3_clientVersion', [])).result).toMatch(/flashchain\//)
  })
})
