import { Common, Mainnet } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { Bloom } from '@ethereumjs/vm'
import { describe, expect, test } from 'vitest'

import { EMPTY_BLOOM } from '../blocks/types.ts'
import {
  addressKey,
  blockOfTransaction,
  decodeReceipt,
  encodeReceipt,
  joinBlock,
  logsBloomOf,
  splitBlock,
  topicKey,
  transactionId,
} from './blockRows.ts'

import type { Hex } from '../../hex.ts'
import type { Log, Receipt } from '../types.ts'

const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex
const logs: Log[] = [
  { address: `0x${'ab'.repeat(20)}`, topics: [word(1), word(2)], data: '0x' },
  { address: `0x${'cd'.repeat(20)}`, topics: [], data: '0x01' },
]
const receipt = (entries: Log[]): Receipt => ({
  status: 1,
  cumulativeGasUsed: 50_000n,
  gasUsed: 29_000n,
  logs: entries,
  logsBloom: logsBloomOf(entries),
  contractAddress: null,
  effectiveGasPrice: 7n,
})

describe('a receipt as the store keeps it', () => {
  test("its bloom is its logs', as ethereumjs computes it", () => {
    const bloom = new Bloom(undefined, new Common({ chain: Mainnet }))
    for (const log of logs) {
      bloom.add(hexToBytes(log.address))
      for (const topic of log.topics) bloom.add(hexToBytes(topic))
    }
    expect(logsBloomOf(logs)).toBe(bytesToHex(bloom.bitvector))
    expect(logsBloomOf([])).toBe(EMPTY_BLOOM)
  })

  test('is kept without its bloom, and reads back whole', () => {
    const logged = receipt(logs)
    const json = encodeReceipt({ ...logged, failure: { halt: 'revert', data: '0x' } })
    expect(json).not.toContain('logsBloom')
    expect(json).not.toContain('failure')
    const back = decodeReceipt(json)
    expect(back).toEqual(logged)
    expect(back.logsBloom).toBe(logged.logsBloom)
    expect({ ...back }.logsBloom).toBe(logged.logsBloom)
    expect(decodeReceipt(encodeReceipt(receipt([]))).logsBloom).toBe(EMPTY_BLOOM)
  })
})

describe('a block as rows', () => {
  test('splits into the block without transactions and each encoding, and joins back byte for byte', () => {
    const typed = Uint8Array.of(0x02, 0xc2, 0x05, 0x06)
    const legacy = [Uint8Array.of(0x09), Uint8Array.of(0x0a)]
    const rlp = RLP.encode([[Uint8Array.of(1)], [legacy, typed], [], []])
    const { body, transactions } = splitBlock(rlp)
    expect(transactions).toEqual([RLP.encode(legacy), typed])
    expect(body).toEqual(RLP.encode([[Uint8Array.of(1)], [], [], []]))
    expect(joinBlock(body, transactions)).toEqual(rlp)
  })

  test('a log key is its position and its bytes, whatever the case of the hex', () => {
    const address = `0x${'aB'.repeat(20)}` as Hex
    expect(addressKey(address)).toEqual(Uint8Array.of(4, ...new Uint8Array(20).fill(0xab)))
    expect(addressKey(address)).toEqual(addressKey(address.toLowerCase() as Hex))
    expect(topicKey(2, word(0xff))).toEqual(Uint8Array.of(2, ...new Uint8Array(31), 0xff))
  })

  test("a transaction's id orders it by block, then index", () => {
    expect(transactionId(3n, 5)).toBeLessThan(transactionId(4n, 0))
    expect(blockOfTransaction(transactionId(21_000_000n, 7))).toBe(21_000_000)
    expect(transactionId(21_000_000n, 7) % 2 ** 20).toBe(7)
  })
})
