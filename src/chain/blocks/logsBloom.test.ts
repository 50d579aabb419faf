import { hexToBytes } from '@ethereumjs/util'
import { Bloom } from '@ethereumjs/vm'
import { describe, expect, test } from 'vitest'

import { bloomMayMatch, bloomQuery } from './logsBloom.ts'

import type { Hex } from '../../hex.ts'

const token = `0x${'aa'.repeat(20)}` as Hex
const other = `0x${'bb'.repeat(20)}` as Hex
const transfer = `0x${'01'.repeat(32)}` as Hex
const approval = `0x${'02'.repeat(32)}` as Hex
const holder = `0x${'03'.repeat(32)}` as Hex

/** The bloom of a block with one log: `token` emitting (transfer, holder). */
function blockBloom(): Bloom {
  const bloom = new Bloom()
  for (const entry of [token, transfer, holder]) bloom.add(hexToBytes(entry))
  return bloom
}

describe('bloomMayMatch', () => {
  test('default: a filter the logged address and topics satisfy may match', () => {
    expect(bloomMayMatch(blockBloom(), bloomQuery({ addresses: [token], topics: [transfer, holder] }))).toBe(true)
    expect(bloomMayMatch(blockBloom(), bloomQuery({}))).toBe(true)
  })

  test('any of the addresses, and any alternative at a topic position, is enough', () => {
    expect(bloomMayMatch(blockBloom(), bloomQuery({ addresses: [other, token] }))).toBe(true)
    expect(bloomMayMatch(blockBloom(), bloomQuery({ topics: [[approval, transfer]] }))).toBe(true)
  })

  test('null and empty topic positions constrain nothing', () => {
    expect(bloomMayMatch(blockBloom(), bloomQuery({ topics: [null, [], holder] }))).toBe(true)
  })

  test('a missing address, or a position none of whose alternatives is in the bloom, rules the block out', () => {
    expect(bloomMayMatch(blockBloom(), bloomQuery({ addresses: [other] }))).toBe(false)
    expect(bloomMayMatch(blockBloom(), bloomQuery({ addresses: [token], topics: [approval] }))).toBe(false)
    expect(bloomMayMatch(blockBloom(), bloomQuery({ topics: [null, [approval]] }))).toBe(false)
    expect(bloomMayMatch(new Bloom(), bloomQuery({ addresses: [token] }))).toBe(false)
  })
})
