import { describe, expect, test } from 'vitest'

import { useFlashchain } from '../../../test/support/flashchain.ts'

const poor = '0x000000000000000000000000000000000000dead'
const target = '0x00000000000000000000000000000000000c0de2'

const node = useFlashchain()
const { request, rejection } = node

describe('eth_estimateGas', () => {
  test('default: a plain transfer is 21000', async () => {
    const [from] = node.flashchain.chain.spec.accounts
    expect(await request('eth_estimateGas', [{ from: from!.address, to: poor, value: '0x1' }])).toBe('0x5208')
  })

  test('args: a balance override lets an empty account pay', async () => {
    expect(await rejection('eth_estimateGas', [{ from: poor, to: target, value: '0x1' }])).toMatchObject({
      code: -32000,
      message: `insufficient funds for gas * price + value: address ${poor} have 0 want 1`,
    })
    expect(await request('eth_estimateGas', [{ from: poor, to: target, value: '0x1' }, 'latest', { [poor]: { balance: '0x10' } }])).toBe('0x5208')
  })

  test('a run that never looks at its gas is estimated in one EVM run, at the least limit that succeeds', async () => {
    // PUSH1 1, PUSH0, SSTORE, STOP: 21000 + 3 + 2 + a cold 0 → 1 SSTORE (22100).
    const overrides = { [target]: { code: '0x60015f5500' } }
    const before = node.flashchain.chain.calls.executionRuns
    expect(await request('eth_estimateGas', [{ to: target }, 'latest', overrides])).toBe(`0x${(43_105).toString(16)}`)
    expect(node.flashchain.chain.calls.executionRuns - before).toBe(1)
    expect(await rejection('eth_estimateGas', [{ to: target, gas: `0x${(43_104).toString(16)}` }, 'latest', overrides])).toEqual({
      code: -32000,
      message: 'gas required exceeds allowance (43104)',
    })
  })

  test('a run that reads GAS is confirmed by a second run', async () => {
    // GAS, POP, PUSH1 1, PUSH0, SSTORE, STOP
    const overrides = { [target]: { code: '0x5a5060015f5500' } }
    const before = node.flashchain.chain.calls.executionRuns
    expect(await request('eth_estimateGas', [{ to: target }, 'latest', overrides])).toBe(`0x${(43_109).toString(16)}`)
    expect(node.flashchain.chain.calls.executionRuns - before).toBe(2)
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
