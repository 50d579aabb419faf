import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { encodeFunctionData, getContractAddress } from 'viem'

import { Store } from './fixtures/contracts.ts'
import { startChain } from './helpers.ts'
import { connect, wsUrl } from './wsHelpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain
/** The Store contract, deployed and sealed in block `deployedIn`. */
let store: Hex
let deployedIn: bigint

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

describe('eth_getCode: a deployment seen through pending before the seal', () => {
  it('returns the runtime code for pending after a pre-confirmation, while latest still says 0x', async () => {
    const deployer = t.accounts[0]!
    const nonce = await t.publicClient.getTransactionCount({ address: deployer.address, blockTag: 'pending' })
    const hash = await t.wallet(0).deployContract({ abi: Store.abi, bytecode: Store.bytecode, args: [42n] })
    store = getContractAddress({ from: deployer.address, nonce: BigInt(nonce) }).toLowerCase() as Hex

    // In the pool only: nothing is pre-confirmed yet.
    expect(await t.rpc('eth_getCode', [store, 'pending'])).toBe('0x')

    const flashblock = await t.preconfirm()
    expect(flashblock.transactions).toEqual([hash])
    expect(await t.rpc('eth_getCode', [store, 'pending'])).toBe(Store.deployedBytecode)
    expect(await t.rpc('eth_getCode', [store, 'latest'])).toBe('0x')
    // The constructor's write is pending state too.
    expect(await t.rpc('eth_getStorageAt', [store, '0x0', 'pending'])).toBe(`0x${'2a'.padStart(64, '0')}`)
    expect(await t.rpc('eth_getStorageAt', [store, '0x0', 'latest'])).toBe(`0x${'0'.repeat(64)}`)

    deployedIn = await t.mine()
    const receipt = await t.publicClient.getTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(receipt.contractAddress).toBe(store)
    expect(receipt.blockNumber).toBe(deployedIn)
  })

  it('returns the runtime code for latest once the block is sealed', async () => {
    expect(await t.rpc('eth_getCode', [store, 'latest'])).toBe(Store.deployedBytecode)
    expect(await t.rpc('eth_getCode', [store, 'pending'])).toBe(Store.deployedBytecode)
    expect(await t.publicClient.getCode({ address: store })).toBe(Store.deployedBytecode)
  })

  it('reads historical state by block number: 0x before the deployment block, the code from it on', async () => {
    expect(await t.rpc('eth_getCode', [store, `0x${(deployedIn - 1n).toString(16)}`])).toBe('0x')
    expect(await t.rpc('eth_getCode', [store, `0x${deployedIn.toString(16)}`])).toBe(Store.deployedBytecode)
  })

  it('treats a missing block parameter as latest', async () => {
    expect(await t.rpc('eth_getCode', [store])).toBe(Store.deployedBytecode)
  })

  it('accepts a mixed-case (checksummed) address', async () => {
    const checksummed = t.accounts[0]!.address // viem's addresses are EIP-55 checksummed
    expect(checksummed).not.toBe(checksummed.toLowerCase())
    expect(await t.rpc('eth_getCode', [checksummed, 'latest'])).toBe('0x')
    expect(await t.rpc('eth_getCode', [store.toUpperCase().replace('0X', '0x'), 'latest'])).toBe(Store.deployedBytecode)
  })
})

describe('eth_getCode: accounts without code', () => {
  it('returns 0x for an externally owned account with a balance and a nonce', async () => {
    const eoa = t.accounts[0]!.address
    expect(await t.rpc('eth_getTransactionCount', [eoa, 'latest'])).not.toBe('0x0')
    expect(await t.rpc('eth_getCode', [eoa, 'latest'])).toBe('0x')
    expect(await t.rpc('eth_getCode', [eoa, 'pending'])).toBe('0x')
  })

  it('returns 0x for an account the chain has never seen', async () => {
    expect(await t.rpc('eth_getCode', ['0x00000000000000000000000000000000deadbeef', 'latest'])).toBe('0x')
    expect(await t.rpc('eth_getCode', ['0x00000000000000000000000000000000deadbeef', 'pending'])).toBe('0x')
  })
})

describe('eth_getCode: block tags and EIP-1898 objects', () => {
  it('earliest is genesis, where the contract does not exist', async () => {
    expect(await t.rpc('eth_getCode', [store, 'earliest'])).toBe('0x')
  })

  it('safe and finalized are floored at genesis on a young chain (latest − 32 and latest − 64)', async () => {
    expect(await t.blockNumber()).toBeLessThan(32n)
    expect(await t.rpc('eth_getCode', [store, 'safe'])).toBe('0x')
    expect(await t.rpc('eth_getCode', [store, 'finalized'])).toBe('0x')
  })

  it('safe is latest − 32 and finalized latest − 64 once the chain is long enough', async () => {
    // Seal empty blocks until latest − 32 is the deployment block.
    while ((await t.blockNumber()) < deployedIn + 32n) await t.rpc('evm_mine')
    expect(await t.rpc('eth_getCode', [store, 'safe'])).toBe(Store.deployedBytecode)
    expect(await t.rpc('eth_getCode', [store, 'finalized'])).toBe('0x')
    const safe = await t.rpc<{ number: Hex }>('eth_getBlockByNumber', ['safe', false])
    expect(safe.number).toBe(`0x${deployedIn.toString(16)}`)
    // One block earlier, the safe block did not have it.
    const oneShort = await t.rpc<{ number: Hex; hash: Hex }>('eth_getBlockByNumber', [`0x${(deployedIn - 1n).toString(16)}`, false])
    expect(await t.rpc('eth_getCode', [store, { blockHash: oneShort.hash }])).toBe('0x')

    while ((await t.blockNumber()) < deployedIn + 64n) await t.rpc('evm_mine')
    expect(await t.rpc('eth_getCode', [store, 'finalized'])).toBe(Store.deployedBytecode)
    expect((await t.rpc<{ number: Hex }>('eth_getBlockByNumber', ['finalized', false])).number).toBe(`0x${deployedIn.toString(16)}`)
  })

  it('accepts { blockNumber }', async () => {
    expect(await t.rpc('eth_getCode', [store, { blockNumber: `0x${deployedIn.toString(16)}` }])).toBe(Store.deployedBytecode)
    expect(await t.rpc('eth_getCode', [store, { blockNumber: `0x${(deployedIn - 1n).toString(16)}` }])).toBe('0x')
  })

  it('accepts { blockHash } and { blockHash, requireCanonical }', async () => {
    const block = await t.publicClient.getBlock({ blockNumber: deployedIn })
    const parent = await t.publicClient.getBlock({ blockNumber: deployedIn - 1n })
    expect(await t.rpc('eth_getCode', [store, { blockHash: block.hash }])).toBe(Store.deployedBytecode)
    expect(await t.rpc('eth_getCode', [store, { blockHash: block.hash, requireCanonical: true }])).toBe(Store.deployedBytecode)
    expect(await t.rpc('eth_getCode', [store, { blockHash: parent.hash }])).toBe('0x')
  })

  it('answers -32001 "block not found" for a block number beyond the head', async () => {
    expect(await t.rpcError('eth_getCode', [store, '0xffffff'])).toEqual({ code: -32001, message: 'block not found: 0xffffff' })
    expect(await t.rpcError('eth_getCode', [store, { blockNumber: '0x10000' }])).toEqual({ code: -32001, message: 'block not found: 0x10000' })
  })

  it('answers -32001 "block not found" for an unknown block hash', async () => {
    const unknown = `0x${'ab'.repeat(32)}`
    expect(await t.rpcError('eth_getCode', [store, { blockHash: unknown }])).toEqual({ code: -32001, message: `block not found: ${unknown}` })
  })
})

describe('eth_getCode: malformed input', () => {
  it.each([
    ['a 19-byte address', '0x00000000000000000000000000000000deadbe'],
    ['a 21-byte address', '0x00000000000000000000000000000000deadbeef00'],
    ['an address without 0x', '00000000000000000000000000000000deadbeef'],
    ['a non-hex address', '0x00000000000000000000000000000000deadbeeg'],
    ['an empty string', ''],
  ])('rejects %s with -32602 naming argument 0', async (_name, bad) => {
    const error = await t.rpcError('eth_getCode', [bad, 'latest'])
    expect(error.code).toBe(-32602)
    expect(error.message).toMatch(/^invalid argument 0: /)
  })

  it('says how long a 19-byte address is', async () => {
    expect(await t.rpcError('eth_getCode', ['0x00000000000000000000000000000000deadbe', 'latest'])).toEqual({
      code: -32602,
      message: 'invalid argument 0: hex string has length 38, want 40 for common.Address',
    })
  })

  it('rejects a non-string address with -32602 naming argument 0', async () => {
    const error = await t.rpcError('eth_getCode', [42, 'latest'])
    expect(error.code).toBe(-32602)
    expect(error.message).toMatch(/^invalid argument 0: /)
  })

  it.each([
    ['a misspelled tag', 'lates'],
    ['a tag in upper case', 'LATEST'],
    ['a decimal number', '12'],
    // anvil's BlockId takes a block number only as a string: a JSON integer is refused there too.
    ['a JSON integer', 1],
    ['an empty hex number', '0x'],
    ['an empty object', {}],
  ])('rejects %s as the block with -32602 naming argument 1', async (_name, bad) => {
    const error = await t.rpcError('eth_getCode', [store, bad])
    expect(error.code).toBe(-32602)
    expect(error.message).toMatch(/^invalid argument 1: /)
  })

  it('rejects a missing address with -32602', async () => {
    const error = await t.rpcError('eth_getCode', [])
    expect(error.code).toBe(-32602)
    expect(error.message).toBe('missing value for required argument 0')
  })
})

describe('eth_getCode: EIP-7702 delegation', () => {
  it('returns the raw 23-byte designator 0xef0100 ‖ delegate of a delegated account', async () => {
    const authority = t.accounts[2]!
    // The authority signs; account 0 pays for and sends the type-4 transaction, which calls the delegated code.
    const authorization = await t.wallet(2).signAuthorization({ account: authority, contractAddress: store })
    const hash = await t.wallet(0).sendTransaction({
      authorizationList: [authorization],
      to: authority.address,
      data: encodeFunctionData({ abi: Store.abi, functionName: 'value' }),
      gas: 100_000n,
    })
    const designator = `0xef0100${store.slice(2).toLowerCase()}`

    expect(await t.rpc('eth_getCode', [authority.address, 'pending'])).toBe('0x')
    await t.preconfirm()
    expect(await t.rpc('eth_getCode', [authority.address, 'pending'])).toBe(designator)
    expect(await t.rpc('eth_getCode', [authority.address, 'latest'])).toBe('0x')

    await t.mine()
    const receipt = await t.publicClient.getTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(receipt.type).toBe('eip7702')
    const code = await t.rpc<Hex>('eth_getCode', [authority.address, 'latest'])
    expect(code).toBe(designator)
    expect((code.length - 2) / 2).toBe(23)
    // The delegate keeps its own code.
    expect(await t.rpc('eth_getCode', [store, 'latest'])).toBe(Store.deployedBytecode)
  })
})

describe('eth_getCode: one answer however it is asked', () => {
  it('answers the same code in a batch beside other answers, over WebSocket and in process, as over HTTP', async () => {
    const expected = Store.deployedBytecode
    const response = await fetch(t.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_getCode', params: [store, 'latest'] },
        { jsonrpc: '2.0', id: 2, method: 'eth_getCode', params: [t.accounts[0]!.address, 'latest'] },
        { jsonrpc: '2.0', id: 3, method: 'eth_getCode', params: [store, 'latest'] },
      ]),
    })
    expect(await response.json()).toEqual([
      { jsonrpc: '2.0', id: 1, result: expected },
      { jsonrpc: '2.0', id: 2, result: '0x' },
      { jsonrpc: '2.0', id: 3, result: expected },
    ])
    const ws = await connect(wsUrl(t.url))
    try {
      expect(await ws.rpc('eth_getCode', [store, 'latest'])).toBe(expected)
    } finally {
      await ws.close()
    }
    expect(await t.flashchain.request({ method: 'eth_getCode', params: [store, 'latest'] })).toBe(expected)
  })
})
