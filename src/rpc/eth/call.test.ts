import { describe, expect, test } from 'vitest'

import { useFlashchain } from '../../../test/support/flashchain.ts'

// Runtime code: return sload(0) | return block.number | revert with Error("nope").
const returnsSlot0 = '0x60005460005260206000f3'
const returnsNumber = '0x4360005260206000f3'
const target = '0x00000000000000000000000000000000000c0de1'

const node = useFlashchain()
const { request, rejection } = node

describe('eth_call', () => {
  test('default: a call to an account without code returns 0x', async () => {
    expect(await request('eth_call', [{ to: target, data: '0x12' }])).toBe('0x')
  })

  test('args: state overrides give an account code and storage for one call', async () => {
    const slot0 = `0x${'00'.repeat(31)}2a`
    const overrides = { [target]: { code: returnsSlot0, stateDiff: { '0x0': slot0 } } }
    expect(await request('eth_call', [{ to: target }, 'latest', overrides])).toBe(slot0)
    // Nothing stays behind.
    expect(await request('eth_getCode', [target, 'latest'])).toBe('0x')
  })

  test('args: block overrides change the environment the call sees', async () => {
    const overrides = { [target]: { code: returnsNumber } }
    expect(await request('eth_call', [{ to: target }, 'latest', overrides, { number: '0x539' }])).toBe(`0x${'00'.repeat(30)}0539`)
  })

  test('error: state and stateDiff together are refused', async () => {
    const overrides = { [target]: { state: {}, stateDiff: {} } }
    expect(await rejection('eth_call', [{ to: target }, 'latest', overrides])).toMatchObject({
      code: -32602,
      message: `invalid argument 2: account ${target} has both 'state' and 'stateDiff'`,
    })
  })

  test('error: an unknown override field names the argument', async () => {
    const result = await rejection('eth_call', [{ to: target }, 'latest', { [target]: { balanse: '0x1' } }])
    expect(result?.code).toBe(-32602)
    expect(result?.message).toMatch(/^invalid argument 2: /)
  })
})
