import { describe, expect, test } from 'vitest'

import { ExecutionRevertedError } from '../errors.ts'
import { useFlashchain } from '../../../test/support/flashchain.ts'
import { createAnswerCache } from './answers.ts'
import { CALL_REQUEST_FIELDS } from './executor.ts'

import type { CallRequest } from './executor.ts'
import type { Hex } from '../../hex.ts'

describe('createAnswerCache', () => {
  const request = { to: '0x00000000000000000000000000000000000000aa' as Hex, data: '0x01' as Hex, value: 5n }

  function counted<T>(value: T) {
    const compute = Object.assign(
      async () => {
        compute.calls++
        return value
      },
      { calls: 0 },
    )
    return compute
  }

  test('a request seen before on the same snapshot is kept, and answered from the cache from then on', async () => {
    const cache = createAnswerCache()
    const snapshot = {}
    const compute = counted(42n)
    expect(await cache.answer(snapshot, 'eth_estimateGas', request, compute)).toEqual({ value: 42n, hit: false })
    expect(cache.size).toBe(0)
    expect(await cache.answer(snapshot, 'eth_estimateGas', { ...request }, compute)).toEqual({ value: 42n, hit: false })
    expect(cache.size).toBe(1)
    expect(await cache.answer(snapshot, 'eth_estimateGas', { ...request }, compute)).toEqual({ value: 42n, hit: true })
    expect(await cache.answer(snapshot, 'eth_estimateGas', { ...request }, compute)).toEqual({ value: 42n, hit: true })
    expect(compute.calls).toBe(2)
  })

  test('another snapshot, method, or any other field of the request is a miss', async () => {
    const cache = createAnswerCache()
    const snapshot = {}
    const compute = counted(1n)
    await cache.answer(snapshot, 'eth_call', request, compute)
    await cache.answer({}, 'eth_call', request, compute)
    await cache.answer(snapshot, 'eth_estimateGas', request, compute)
    await cache.answer(snapshot, 'eth_call', { ...request, value: 6n }, compute)
    await cache.answer(snapshot, 'eth_call', { ...request, data: '0x02' }, compute)
    await cache.answer(snapshot, 'eth_call', { ...request, from: '0x00000000000000000000000000000000000000bb' }, compute)
    expect(compute.calls).toBe(6)
    // Each was seen once: none is kept.
    expect(cache.size).toBe(0)
  })

  test('the key holds every field of the request, whatever order the fields were given in', async () => {
    const address = '0x00000000000000000000000000000000000000cc' as Hex
    const full: Required<CallRequest> = {
      from: address,
      to: null,
      data: '0x01',
      value: 1n,
      gas: 30_000n,
      gasPrice: 2n,
      maxFeePerGas: 3n,
      maxPriorityFeePerGas: 4n,
      nonce: 5n,
      type: 2,
      accessList: [{ address, storageKeys: [`0x${'00'.repeat(31)}01`] }],
      maxFeePerBlobGas: 6n,
      blobVersionedHashes: [`0x01${'00'.repeat(31)}`],
      authorizationList: [{ chainId: 1n, address, nonce: 7n, yParity: 0, r: 8n, s: 9n }],
    }
    expect(Object.keys(full).sort()).toEqual([...CALL_REQUEST_FIELDS].sort())
    const cache = createAnswerCache()
    const snapshot = {}
    const compute = counted(1n)
    await cache.answer(snapshot, 'eth_call', full, compute)
    const reversed = Object.fromEntries(Object.entries(full).reverse()) as CallRequest
    expect((await cache.answer(snapshot, 'eth_call', reversed, compute)).hit).toBe(false)
    expect((await cache.answer(snapshot, 'eth_call', full, compute)).hit).toBe(true)
    // Leaving out any one field, or changing a number inside one of the lists, is another request.
    for (const field of CALL_REQUEST_FIELDS) {
      const { [field]: _left, ...rest } = full
      expect((await cache.answer(snapshot, 'eth_call', rest, compute)).hit).toBe(false)
    }
    const otherAuthorization = { ...full, authorizationList: [{ ...full.authorizationList[0]!, nonce: 8n }] }
    expect((await cache.answer(snapshot, 'eth_call', otherAuthorization, compute)).hit).toBe(false)
    expect(compute.calls).toBe(2 + CALL_REQUEST_FIELDS.length + 1)
  })

  test('a failure that is an answer (a ChainError) is kept and thrown again; any other error is not kept', async () => {
    const cache = createAnswerCache()
    const snapshot = {}
    const reverted = new ExecutionRevertedError({ data: '0x' })
    let runs = 0
    const reverts = async () => {
      runs++
      throw reverted
    }
    await expect(cache.answer(snapshot, 'eth_call', request, reverts)).rejects.toBe(reverted)
    await expect(cache.answer(snapshot, 'eth_call', request, reverts)).rejects.toBe(reverted)
    await expect(cache.answer(snapshot, 'eth_call', request, reverts)).rejects.toBe(reverted)
    expect(runs).toBe(2)

    const crashes = async () => {
      runs++
      throw new Error('boom')
    }
    await expect(cache.answer(snapshot, 'eth_estimateGas', request, crashes)).rejects.toThrow('boom')
    await expect(cache.answer(snapshot, 'eth_estimateGas', request, crashes)).rejects.toThrow('boom')
    await expect(cache.answer(snapshot, 'eth_estimateGas', request, crashes)).rejects.toThrow('boom')
    expect(runs).toBe(5)
  })

  test('identical requests that arrive together share one run', async () => {
    const cache = createAnswerCache()
    const snapshot = {}
    let release: (value: bigint) => void = () => {}
    let runs = 0
    const compute = () => {
      runs++
      return new Promise<bigint>((resolve) => (release = resolve))
    }
    const first = cache.answer(snapshot, 'eth_estimateGas', request, compute)
    const second = cache.answer(snapshot, 'eth_estimateGas', { ...request }, compute)
    release(21000n)
    expect(await first).toEqual({ value: 21000n, hit: false })
    expect(await second).toEqual({ value: 21000n, hit: true })
    expect(runs).toBe(1)
  })

  test('bounded: the least recently used entry goes first', async () => {
    const cache = createAnswerCache(2)
    const snapshot = {}
    const compute = counted('0x')
    const a = { ...request, value: 1n }
    const b = { ...request, value: 2n }
    const c = { ...request, value: 3n }
    // Each is kept from its second sighting.
    for (const seen of [a, a, b, b]) await cache.answer(snapshot, 'eth_call', seen, compute)
    await cache.answer(snapshot, 'eth_call', a, compute) // a is now the most recent
    for (const seen of [c, c]) await cache.answer(snapshot, 'eth_call', seen, compute) // evicts b
    expect(cache.size).toBe(2)
    expect((await cache.answer(snapshot, 'eth_call', a, compute)).hit).toBe(true)
    expect((await cache.answer(snapshot, 'eth_call', b, compute)).hit).toBe(false)
  })

  test('requests with large calldata are not kept', async () => {
    const cache = createAnswerCache()
    const snapshot = {}
    const big = { ...request, data: `0x${'ab'.repeat(2048)}` as Hex }
    const compute = counted(7n)
    await cache.answer(snapshot, 'eth_estimateGas', big, compute)
    expect((await cache.answer(snapshot, 'eth_estimateGas', big, compute)).hit).toBe(false)
    expect(cache.size).toBe(0)
  })
})

// Runtime code: return balance(calldataload(0)), i.e. the balance of the address in the call's first word.
const balanceReader = '0x00000000000000000000000000000000000ba1a0'
const node = useFlashchain({ predeploys: { [balanceReader]: { code: '0x6000353160005260206000f3' } } })
const { request } = node

describe('eth_call and eth_estimateGas through the answer cache', () => {
  const recipient = '0x00000000000000000000000000000000000f00d1'
  const query = { to: balanceReader, data: `0x${recipient.slice(2).padStart(64, '0')}` }
  const balance = (wei: bigint) => `0x${wei.toString(16).padStart(64, '0')}`

  test('a call repeated on one snapshot runs the EVM twice; a new flashblock and a new block are new snapshots', async () => {
    const runs = () => node.flashchain.chain.calls.executionRuns
    // The pending block takes the clock's time, and is built again (a new snapshot) when a second passes: a next-block
    // timestamp holds it still, however long a loaded machine takes over the four calls.
    const { timestamp } = (await request('eth_getBlockByNumber', ['latest', false])) as { timestamp: Hex }
    await request('evm_setNextBlockTimestamp', [`0x${(BigInt(timestamp) + 1000n).toString(16)}`])
    const first = runs()
    for (let i = 0; i < 4; i++) expect(await request('eth_call', [query, 'pending'])).toBe(balance(0n))
    expect(runs()).toBe(first + 2)

    const from = node.flashchain.chain.spec.accounts[0]!.address
    await request('eth_sendTransaction', [{ from, to: recipient, value: '0x7' }])
    await request('flashchain_preconfirm')
    // The flashblock is a new snapshot: pending sees the transfer at once, latest still does not.
    expect(await request('eth_call', [query, 'pending'])).toBe(balance(7n))
    expect(await request('eth_call', [query, 'latest'])).toBe(balance(0n))
    await request('evm_mine')
    expect(await request('eth_call', [query, 'latest'])).toBe(balance(7n))
    // The block before it still answers from its own state.
    const number = BigInt((await request('eth_blockNumber')) as Hex)
    expect(await request('eth_call', [query, `0x${(number - 1n).toString(16)}`])).toBe(balance(0n))
  })

  test('estimates are kept too, and calls with overrides always run', async () => {
    const runs = () => node.flashchain.chain.calls.executionRuns
    const estimate = { from: node.flashchain.chain.spec.accounts[1]!.address, ...query }
    const gas = await request('eth_estimateGas', [estimate, 'latest'])
    expect(await request('eth_estimateGas', [estimate, 'latest'])).toBe(gas)
    const after = runs()
    expect(await request('eth_estimateGas', [estimate, 'latest'])).toBe(gas)
    expect(runs()).toBe(after)

    const overrides = { [recipient]: { balance: '0x9' } }
    expect(await request('eth_call', [query, 'latest', overrides])).toBe(balance(9n))
    expect(await request('eth_call', [query, 'latest', overrides])).toBe(balance(9n))
    expect(runs()).toBe(after + 2)
  })
})
