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
