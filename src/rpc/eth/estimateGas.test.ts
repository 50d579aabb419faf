import { describe, expect, test } from 'vitest'

import { useFlashchain } from '../testing.ts'

const poor = '0x000000000000000000000000000000000000dead'
const target = '0x00000000000000000000000000000000000c0de2'

const node = useFlashchain()
const { request, rejection } = node

describe('eth_estimateGas', () => {
  test('default: a plain transfer is 21000', async () => {
    const [from] = node.flashchain.chain.accounts
    expect(await request('eth_estimateGas', [{ from: from!.address, to: poor, value: '0x1' }])).toBe('0x5208')
  })

  test('args: a balance override lets an empty account pay', async () => {
    expect(await rejection('eth_estimateGas', [{ from: poor, to: target, value: '0x1' }])).toMatchObject({
      code: -32000,
      message: `insufficient funds for gas * price + value: address ${poor} have 0 want 1`,
    })
    expect(await request('eth_estimateGas', [{ from: poor, to: target, value: '0x1' }, 'latest', { [poor]: { balance: '0x10' } }])).toBe('0x5208')
  })

  test('error: a code override that reverts is -32000 with the revert data', async () => {
    // revert(0, 0)
    expect(await rejection('eth_estimateGas', [{ to: target }, 'latest', { [target]: { code: '0x60006000fd' } }])).toEqual({
      code: -32000,
      message: 'execution reverted',
      data: '0x',
    })
  })

  test('error: an unknown block is -32001', async () => {
    expect(await rejection('eth_estimateGas', [{ to: target }, '0x99'])).toMatchObject({ code: -32001, message: 'block not found: 0x99' })
  })
})
