import { describe, expect, test } from 'vitest'

import { hexToBytes } from '../../hex.ts'
import { decodeL1Attributes, encodeL1AttributesJovian, flzCompressLen, l1Cost, l1FeeParamsFromSlots, operatorFee } from './l1Cost.ts'

import type { Hex } from '../../hex.ts'
import type { L1Attributes, L1FeeParams } from './l1Cost.ts'

// Vectors from op-geth's core/types/rollup_cost_test.go, op-revm's l1block.rs and op-alloy's L1 block info tests.

/** op-geth's `emptyTx`, signed: too small for the Fjord fit, so it pays for the minimum size. */
const emptyTx = hexToBytes('0xdd80808094095e7baea6a6c7c4c2dfeb977efac326af552d878080808080')

/** OP Mainnet 0x8eb9dd4eb6d33f4dc25fb015919e4b1e9f7542f9b0322bf6622e268cd116b594, op-geth's `contractCallTx`. */
const contractCallTx = hexToBytes(
  `0x${[
    '02f901550a758302df1483be21b88304743f94f80e51afb613d764fa61751affd3313c190a86bb870151bd62fd12adb8e41ef24f3f0000000000000000000000',
    '00000000000000000000000000000000000000006e000000000000000000000000af88d065e77c8cc2239327c5edb3a432268e58310000000000000000000000',
    '00000000000000000000000000000000000003c1e500000000000000000000000000000000000000000000000000000000000000000000000000000000000000',
    '0000000000000000000000000000000000000000a000000000000000000000000000000000000000000000000000000000000000148c89ed219d02f1a5be012c',
    '689b4f5b731827bebe000000000000000000000000c001a033fd89cb37c31b2cba46b6466e040c61fc9b2a3675a7f5f493ebd5ad77c497f8a07cdf65680e2383',
    '92693019b4092f610222e71b7cec06449cb922b93b6a12744e',
  ].join('')}`,
)

/** The OP Mainnet Fjord transaction op-revm's l1block.rs prices (FastLZ length 385). */
const opMainnetFjordTx = hexToBytes(
  `0x${[
    '02f904940a8303fba78401d6d2798401db2b6d830493e0943e6f4f7866654c18f536170780344aa8772950b680b904246a761202000000000000000000000000',
    '087000a300de7200382b55d40045000000e5d60e0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000',
    '00000000000000000000000000000000000001400000000000000000000000000000000000000000000000000000000000000001000000000000000000000000',
    '00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000',
    '00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000',
    '000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003a0000000000000000000000000',
    '000000000000000000000000000000000000022482ad56cb00000000000000000000000000000000000000000000000000000000000000200000000000000000',
    '00000000000000000000000000000000000000000000000200000000000000000000000000000000000000000000000000000000000000400000000000000000',
    '000000000000000000000000000000000000000000000120000000000000000000000000dc6ff44d5d932cbd77b52e5612ba0529dc6226f10000000000000000',
    '00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000600000000000000000',
    '000000000000000000000000000000000000000000000044095ea7b300000000000000000000000021c4928109acb0659a88ae5329b5374a3024694c00000000',
    '00000000000000000000000000000000000000049b9ca9a694340000000000000000000000000000000000000000000000000000000000000000000000000000',
    '0000000021c4928109acb0659a88ae5329b5374a3024694c00000000000000000000000000000000000000000000000000000000000000000000000000000000',
    '0000000000000000000000000000000000000000000000600000000000000000000000000000000000000000000000000000000000000024b6b55f2500000000',
    '00000000000000000000000000000000000000049b9ca9a694340000000000000000000000000000000000000000000000000000000000000000000000000000',
    '000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000415ec214a3950bea839a7e6fbb',
    '0ba1540ac2076acd50820e2d5ef83d0902cdffb24a47aff7de5190290769c4f0a9c6fabf63012986a0d590b1b571547a8c7050ea1b0000000000000000000000',
    '0000000000000000000000000000000000000000c080a06db770e6e25a617fe9652f0958bd9bd6e49281a53036906386ed39ec48eadf63a07f47cf51a4a40b44',
    '94cf26efc686709a9b03939e20ee27e59682f5faa536667e',
  ].join('')}`,
)

const noFees: L1FeeParams = {
  l1BaseFee: 0n,
  l1BlobBaseFee: 0n,
  baseFeeScalar: 0n,
  blobBaseFeeScalar: 0n,
  operatorFeeScalar: 0n,
  operatorFeeConstant: 0n,
  daFootprintGasScalar: 0n,
}

/** op-revm's parameters where every L1 fee field is 1000. */
const thousands: L1FeeParams = { ...noFees, l1BaseFee: 1000n, l1BlobBaseFee: 1000n, baseFeeScalar: 1000n, blobBaseFeeScalar: 1000n }

describe('flzCompressLen', () => {
  test('default', () => {
    expect(flzCompressLen(new Uint8Array())).toBe(0)
    expect(flzCompressLen(new Uint8Array(1000).fill(1))).toBe(21)
    expect(flzCompressLen(new Uint8Array(1000))).toBe(21)
    expect(flzCompressLen(emptyTx)).toBe(31)
  })

  test('real transactions', () => {
    expect(contractCallTx.length).toBe(345)
    expect(flzCompressLen(contractCallTx)).toBe(202)
    expect(opMainnetFjordTx.length).toBe(1176)
    expect(flzCompressLen(opMainnetFjordTx)).toBe(385)
  })

  test('a call does not see the hash table of the call before it', () => {
    expect(flzCompressLen(contractCallTx)).toBe(202)
    expect(flzCompressLen(emptyTx)).toBe(31)
    expect(flzCompressLen(contractCallTx)).toBe(202)
  })

  test('agrees with a plain port of op-geth on random data with repeats', () => {
    const random = mulberry32(0x5eed)
    const inputs: Uint8Array[] = []
    for (let i = 0; i < 200; i++) inputs.push(randomWithRepeats(random, Math.floor(random() * 2001)))
    // Copies just inside and just outside FastLZ's 8 KiB window, which only long inputs reach.
    for (const distance of [0x1ffe, 0x1fff, 0x2000, 0x2001]) inputs.push(copyAtDistance(random, distance))
    for (const input of inputs) expect([input.length, flzCompressLen(input)]).toEqual([input.length, referenceFlzCompressLen(input)])
  })
})

describe('l1Cost', () => {
  test('default', () => {
    // op-geth's Fjord parameters: the empty transaction pays for the 100-byte minimum.
    const params = { ...noFees, l1BaseFee: 1000_000_000n, l1BlobBaseFee: 10_000_000n, baseFeeScalar: 2n, blobBaseFeeScalar: 3n }
    expect(l1Cost(emptyTx, params)).toEqual({ fee: 3_203_000n, gasUsed: 1600n, daSize: 100n })
  })

  test('args: a transaction below the minimum size', () => {
    expect(l1Cost(hexToBytes('0xfacade'), thousands)).toEqual({ fee: 1700n, gasUsed: 1600n, daSize: 100n })
  })

  test('args: either side of the minimum size', () => {
    // 164 and 165 bytes that never repeat compress to 170 and 171: the fit crosses 100 bytes between them.
    const bytes = Uint8Array.from({ length: 165 }, (_, i) => i)
    expect(flzCompressLen(bytes.subarray(0, 164))).toBe(170)
    expect(l1Cost(bytes.subarray(0, 164), thousands)).toEqual({ fee: 1700n, gasUsed: 1600n, daSize: 100n })
    // estimatedSize = 836,500 × 171 − 42,585,600 = 100,455,900
    expect(l1Cost(bytes, thousands)).toEqual({ fee: 1707n, gasUsed: 1607n, daSize: 100n })
  })

  test('args: a transaction above the minimum size', () => {
    // estimatedSize = 836,500 × 202 − 42,585,600 = 126,387,400
    expect(l1Cost(contractCallTx, thousands)).toEqual({ fee: 2148n, gasUsed: 2022n, daSize: 126n })
  })

  test('args: OP Mainnet parameters', () => {
    const params = { ...noFees, l1BaseFee: 1_055_991_687n, l1BlobBaseFee: 1n, baseFeeScalar: 5227n, blobBaseFeeScalar: 1_014_213n }
    expect(l1Cost(opMainnetFjordTx, params)).toEqual({ fee: 24_681_034_813n, gasUsed: 4471n, daSize: 279n })
  })
})

describe('operatorFee', () => {
  test('default', () => {
    expect(operatorFee(1000n, { ...noFees, operatorFeeScalar: 1000n, operatorFeeConstant: 10n })).toBe(100_000_010n)
  })

  test('args: op-geth parameters', () => {
    const params = { ...noFees, operatorFeeScalar: 1_439_103_868n, operatorFeeConstant: 1_256_417_826_609_331_460n }
    expect(operatorFee(1618n, params)).toBe(1_256_650_673_615_173_860n)
  })

  test('args: both fields zero', () => {
    expect(operatorFee(1_000_000n, noFees)).toBe(0n)
  })
})

/** The fields of a real Base L1 attributes deposit (Ecotone format), from op-alloy's tests. */
const baseAttributes: L1Attributes = {
  ...noFees,
  baseFeeScalar: 2269n,
  blobBaseFeeScalar: 1_055_762n,
  sequenceNumber: 4n,
  timestamp: 0x681c941fn,
  number: 0x1566261n,
  l1BaseFee: 0x5f629c02n,
  l1BlobBaseFee: 1n,
  hash: hexToBytes('0x937badfbcce566e0ba932a3f7659644aa0c6ef019541d3134a1d8cb9f84d45c7'),
  batcherHash: hexToBytes('0x0000000000000000000000005050f69a9786f081509234f1a7f4684b5e5b76c9'),
}

const jovianAttributes: L1Attributes = { ...baseAttributes, operatorFeeScalar: 1234n, operatorFeeConstant: 5678n, daFootprintGasScalar: 400n }

describe('l1FeeParamsFromSlots', () => {
  test('default', () => {
    // The L1Block predeploy's storage after setL1BlockValuesJovian() with jovianAttributes.
    const slot3 = (2269n << 96n) | (1_055_762n << 64n) | 4n
    const slot8 = (400n << 96n) | (1234n << 64n) | 5678n
    expect(l1FeeParamsFromSlots(0x5f629c02n, slot3, 1n, slot8)).toEqual({
      l1BaseFee: 0x5f629c02n,
      l1BlobBaseFee: 1n,
      baseFeeScalar: 2269n,
      blobBaseFeeScalar: 1_055_762n,
      operatorFeeScalar: 1234n,
      operatorFeeConstant: 5678n,
      daFootprintGasScalar: 400n,
    })
  })

  test('args: every bit set', () => {
    const full = (1n << 256n) - 1n
    expect(l1FeeParamsFromSlots(full, full, full, full)).toEqual({
      l1BaseFee: full,
      l1BlobBaseFee: full,
      baseFeeScalar: 0xffff_ffffn,
      blobBaseFeeScalar: 0xffff_ffffn,
      operatorFeeScalar: 0xffff_ffffn,
      operatorFeeConstant: 0xffff_ffff_ffff_ffffn,
      daFootprintGasScalar: 0xffffn,
    })
  })
})

describe('decodeL1Attributes', () => {
  test('default', () => {
    const calldata = hexToBytes(
      `0x${[
        '440a5e20000008dd00101c12000000000000000400000000681c941f0000000001566261000000000000000000000000000000000000000000000000000000005f',
        '629c020000000000000000000000000000000000000000000000000000000000000001937badfbcce566e0ba932a3f7659644aa0c6ef019541d3134a1d8cb9f8',
        '4d45c70000000000000000000000005050f69a9786f081509234f1a7f4684b5e5b76c9',
      ].join('')}`,
    )
    expect(decodeL1Attributes(calldata)).toEqual(baseAttributes)
  })

  test('args: Isthmus format', () => {
    const calldata = encodeL1AttributesJovian(jovianAttributes).slice(0, 176)
    calldata.set(hexToBytes('0x098999be'))
    expect(decodeL1Attributes(calldata)).toEqual({ ...jovianAttributes, daFootprintGasScalar: 0n })
  })

  test('error: not an L1 attributes format', () => {
    const jovian = encodeL1AttributesJovian(jovianAttributes)
    expect(decodeL1Attributes(new Uint8Array())).toBeUndefined()
    expect(decodeL1Attributes(jovian.slice(0, 176))).toBeUndefined()
    expect(decodeL1Attributes(concat(jovian, new Uint8Array(1)))).toBeUndefined()
    const isthmusSelector = jovian.slice()
    isthmusSelector.set(hexToBytes('0x098999be'))
    expect(decodeL1Attributes(isthmusSelector)).toBeUndefined()
    const bedrockSelector = jovian.slice()
    bedrockSelector.set(hexToBytes('0x015d8eb9'))
    expect(decodeL1Attributes(bedrockSelector)).toBeUndefined()
  })
})

describe('encodeL1AttributesJovian', () => {
  test('default', () => {
    const calldata = encodeL1AttributesJovian(jovianAttributes)
    expect(calldata.length).toBe(178)
    expect(calldata.subarray(0, 4)).toEqual(hexToBytes('0x3db6be2b'))
    // The Ecotone fields sit where they did in the real deposit.
    expect(calldata.subarray(4, 164)).toEqual(encodedBaseFields)
    expect(calldata.subarray(164)).toEqual(hexToBytes('0x000004d2000000000000162e0190'))
    expect(decodeL1Attributes(calldata)).toEqual(jovianAttributes)
  })

  test('args: every field at its widest', () => {
    const widest: L1Attributes = {
      baseFeeScalar: 2n ** 32n - 1n,
      blobBaseFeeScalar: 2n ** 32n - 1n,
      sequenceNumber: 2n ** 64n - 1n,
      timestamp: 2n ** 64n - 1n,
      number: 2n ** 64n - 1n,
      l1BaseFee: 2n ** 256n - 1n,
      l1BlobBaseFee: 2n ** 256n - 1n,
      hash: new Uint8Array(32).fill(0xff),
      batcherHash: new Uint8Array(32).fill(0xff),
      operatorFeeScalar: 2n ** 32n - 1n,
      operatorFeeConstant: 2n ** 64n - 1n,
      daFootprintGasScalar: 2n ** 16n - 1n,
    }
    const calldata = encodeL1AttributesJovian(widest)
    expect(calldata.subarray(4).every((byte) => byte === 0xff)).toBe(true)
    expect(decodeL1Attributes(calldata)).toEqual(widest)
  })

  test('error: a value wider than its field', () => {
    expect(() => encodeL1AttributesJovian({ ...jovianAttributes, baseFeeScalar: 2n ** 32n })).toThrow(
      new Error('L1 attributes: baseFeeScalar 4294967296 does not fit in uint32'),
    )
    expect(() => encodeL1AttributesJovian({ ...jovianAttributes, operatorFeeConstant: 2n ** 64n })).toThrow(
      new Error('L1 attributes: operatorFeeConstant 18446744073709551616 does not fit in uint64'),
    )
    expect(() => encodeL1AttributesJovian({ ...jovianAttributes, daFootprintGasScalar: 65536n })).toThrow(
      new Error('L1 attributes: daFootprintGasScalar 65536 does not fit in uint16'),
    )
    expect(() => encodeL1AttributesJovian({ ...jovianAttributes, l1BaseFee: 2n ** 256n })).toThrow(
      new Error(`L1 attributes: l1BaseFee ${2n ** 256n} does not fit in uint256`),
    )
  })

  test('error: a negative value', () => {
    expect(() => encodeL1AttributesJovian({ ...jovianAttributes, number: -1n })).toThrow(new Error('L1 attributes: number -1 does not fit in uint64'))
  })

  test('error: a hash that is not 32 bytes', () => {
    expect(() => encodeL1AttributesJovian({ ...jovianAttributes, hash: new Uint8Array(31) })).toThrow(
      new Error('L1 attributes: hash must be 32 bytes, got 31'),
    )
    expect(() => encodeL1AttributesJovian({ ...jovianAttributes, batcherHash: new Uint8Array(20) })).toThrow(
      new Error('L1 attributes: batcherHash must be 32 bytes, got 20'),
    )
  })
})

/** Bytes 4–164 of the real Base deposit above. */
const encodedBaseFields = hexToBytes(
  `0x${[
    '000008dd00101c12000000000000000400000000681c941f0000000001566261000000000000000000000000000000000000000000000000000000005f629c02',
    '0000000000000000000000000000000000000000000000000000000000000001937badfbcce566e0ba932a3f7659644aa0c6ef019541d3134a1d8cb9f84d45c7',
    '0000000000000000000000005050f69a9786f081509234f1a7f4684b5e5b76c9',
  ].join('')}` as Hex,
)

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

/** A small seeded generator, so the random inputs are the same on every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = Math.imul(state ^ (state >>> 15), state | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

/** Random bytes, runs of one byte, bytes from a tiny alphabet and copies of earlier stretches: what FastLZ finds and misses. */
function randomWithRepeats(random: () => number, length: number): Uint8Array {
  const out = new Uint8Array(length)
  let at = 0
  while (at < length) {
    const count = Math.min(length - at, 1 + Math.floor(random() * 300))
    const kind = Math.floor(random() * 4)
    const from = Math.floor(random() * at)
    for (let i = 0; i < count; i++) {
      if (kind === 0) out[at + i] = Math.floor(random() * 256)
      else if (kind === 1) out[at + i] = out[at - 1] ?? 0
      else if (kind === 2) out[at + i] = Math.floor(random() * 3)
      else out[at + i] = at === 0 ? 7 : out[from + i]!
    }
    at += count
  }
  return out
}

/** Random bytes in which a 64-byte stretch reappears `distance` bytes after it first appeared. */
function copyAtDistance(random: () => number, distance: number): Uint8Array {
  const out = new Uint8Array(distance + 200)
  for (let i = 0; i < out.length; i++) out[i] = Math.floor(random() * 256)
  out.copyWithin(100 + distance, 100, 164)
  return out
}

/** op-geth's `FlzCompressLen`, ported line by line with its closures, a fresh table and BigInt arithmetic for the hash. */
function referenceFlzCompressLen(ib: Uint8Array): number {
  let n = 0
  const ht = new Array<number>(8192).fill(0)
  const u24 = (i: number) => ib[i]! | (ib[i + 1]! << 8) | (ib[i + 2]! << 16)
  const cmp = (p: number, q: number, e: number) => {
    let l = 0
    for (e -= q; l < e; l++) if (ib[p + l] !== ib[q + l]) e = 0
    return l
  }
  const literals = (r: number) => {
    n += 0x21 * Math.floor(r / 0x20)
    r %= 0x20
    if (r !== 0) n += r + 1
  }
  const match = (l: number) => {
    l--
    n += 3 * Math.floor(l / 262)
    n += l % 262 >= 6 ? 3 : 2
  }
  const hash = (v: number) => Number(((2654435769n * BigInt(v)) % 2n ** 32n) >> 19n) & 0x1fff
  const setNextHash = (ip: number) => {
    ht[hash(u24(ip))] = ip
    return ip + 1
  }
  let a = 0
  const ipLimit = ib.length < 13 ? 0 : ib.length - 13
  for (let ip = a + 2; ip < ipLimit; ) {
    let r = 0
    for (;;) {
      const s = u24(ip)
      const h = hash(s)
      r = ht[h]!
      ht[h] = ip
      const d = ip - r
      if (ip >= ipLimit) break
      ip++
      if (d <= 0x1fff && s === u24(r)) break
    }
    if (ip >= ipLimit) break
    ip--
    if (ip > a) literals(ip - a)
    const l = cmp(r + 3, ip + 3, ipLimit + 9)
    match(l)
    ip = setNextHash(setNextHash(ip + l))
    a = ip
  }
  literals(ib.length - a)
  return n
}
