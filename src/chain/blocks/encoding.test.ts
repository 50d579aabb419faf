import { encodeReceipt as encodeVmReceipt } from '@ethereumjs/vm'
import { hexToBytes } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { encodeReceipt } from './encoding.ts'

import type { Hex } from '../../hex.ts'
import type { Receipt } from '../types.ts'

const bloom = `0x${'00'.repeat(255)}80` as Hex
const log = { address: `0x${'11'.repeat(20)}` as Hex, topics: [`0x${'22'.repeat(32)}` as Hex], data: '0x0102' as Hex }
const receipt: Receipt = {
  status: 1,
  cumulativeGasUsed: 43_000n,
  gasUsed: 22_000n,
  logs: [log],
  logsBloom: bloom,
  contractAddress: null,
  effectiveGasPrice: 7n,
}

/** The same receipt as @ethereumjs/vm's encoder takes it. */
function vmReceipt(plain: Receipt) {
  return {
    cumulativeBlockGasUsed: plain.cumulativeGasUsed,
    bitvector: hexToBytes(plain.logsBloom),
    logs: plain.logs.map((entry) => [hexToBytes(entry.address), entry.topics.map((topic) => hexToBytes(topic)), hexToBytes(entry.data)]),
    ...(plain.root === undefined ? { status: plain.status } : { stateRoot: hexToBytes(plain.root) }),
  } as Parameters<typeof encodeVmReceipt>[0]
}

describe('encodeReceipt', () => {
  test('default: a typed receipt is its type byte and the RLP list, as the receipts trie holds it', () => {
    for (const type of [0, 1, 2, 3, 4] as const) expect(encodeReceipt(receipt, type)).toEqual(encodeVmReceipt(vmReceipt(receipt), type))
    expect(encodeReceipt(receipt, 2)[0]).toBe(2)
    expect(encodeReceipt(receipt, 0)[0]).toBeGreaterThanOrEqual(0xc0)
  })

  test('a failed transaction encodes its status as empty bytes; before Byzantium the post-state root stands there', () => {
    const failed = { ...receipt, status: 0 as const, logs: [] }
    expect(encodeReceipt(failed, 2)).toEqual(encodeVmReceipt(vmReceipt(failed), 2))
    const old = { ...receipt, status: undefined, root: `0x${'ab'.repeat(32)}` as Hex }
    expect(encodeReceipt(old, 0)).toEqual(encodeVmReceipt(vmReceipt(old), 0))
  })
})
