import { describe, expect, test } from 'vitest'

import { useFlashchain } from '../../../test/support/flashchain.ts'

// Runtime code `PUSH1 0x2a PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN`, deployed by an init code that returns it.
const runtime = '0x602a60005260206000f3'
const initCode = `0x69${runtime.slice(2)}600052600a6016f3`

const node = useFlashchain()
const { request, rejection } = node

describe('eth_getCode', () => {
  test('default: an account without code is 0x, and a missing block means latest', async () => {
    const [account] = node.flashchain.chain.spec.accounts
    expect(await request('eth_getCode', [account!.address, 'latest'])).toBe('0x')
    expect(await request('eth_getCode', [account!.address])).toBe('0x')
  })

  test('args: pending sees a deployment before the block seals; latest and history do not', async () => {
    const [deployer] = node.flashchain.chain.spec.accounts
    const hash = await request('eth_sendTransaction', [{ from: deployer!.address, data: initCode }])
    await request('flashchain_preconfirm', [])
    const receipt = (await request('eth_getTransactionReceipt', [hash])) as { contractAddress: string; blockHash: string }
    expect(receipt.blockHash).toBe(((await request('eth_getBlockByNumber', ['pending', false])) as { hash: string }).hash)
    expect(await request('eth_getCode', [receipt.contractAddress, 'pending'])).toBe(runtime)
    expect(await request('eth_getCode', [receipt.contractAddress, 'latest'])).toBe('0x')

    await request('evm_mine', [])
    expect(await request('eth_getCode', [receipt.contractAddress, 'latest'])).toBe(runtime)
    expect(await request('eth_getCode', [receipt.contractAddress, '0x1'])).toBe(runtime)
    expect(await request('eth_getCode', [receipt.contractAddress, '0x0'])).toBe('0x')
    expect(await request('eth_getCode', [receipt.contractAddress, 'earliest'])).toBe('0x')
    expect(await request('eth_getCode', [receipt.contractAddress, { blockNumber: '0x1' }])).toBe(runtime)
  })

  test('error: a malformed address is -32602 naming argument 0', async () => {
    expect(await rejection('eth_getCode', ['0x1234', 'latest'])).toEqual({
      code: -32602,
      message: 'invalid argument 0: hex string has length 4, want 40 for common.Address',
    })
  })

  test('error: a malformed block tag is -32602 naming argument 1', async () => {
    const result = await rejection('eth_getCode', ['0x0000000000000000000000000000000000000001', 'lates'])
    expect(result?.code).toBe(-32602)
    expect(result?.message).toMatch(/^invalid argument 1: /)
  })

  test('error: an unknown block is -32001', async () => {
    expect(await rejection('eth_getCode', ['0x0000000000000000000000000000000000000001', '0x3e8'])).toEqual({
      code: -32001,
      message: 'block not found: 0x3e8',
    })
    const unknownHash = `0x${'ab'.repeat(32)}`
    expect(await rejection('eth_getCode', ['0x0000000000000000000000000000000000000001', { blockHash: unknownHash }])).toEqual({
      code: -32001,
      message: `block not found: ${unknownHash}`,
    })
  })
})
