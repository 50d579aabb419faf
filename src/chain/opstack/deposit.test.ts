import { Common, Mainnet } from '@ethereumjs/common'
import { Address } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { bytesToHex, hexToBytes } from '../../hex.ts'
import { DepositTransaction, SourceDomain, decodeDeposit, sourceHashOf } from './deposit.ts'

import type { Hex } from '../../hex.ts'

const common = new Common({ chain: Mainnet })

// Fixtures from public OP chains: an OP Sepolia user deposit (foundry's anvil tests) and a Base L1 attributes
// deposit of 2025-05-08 (op-alloy's deposit tests); their hashes are the keccak of the envelope.
const sepoliaDeposit =
  '0x7ef861a0dfd7ae78bf3c414cfaa77f13c0205c82eb9365e217b2daa3448c3156b69b27ac94778f2146f48179643473b82931c4cd7b8f153efd94778f2146f48179643473b82931c4cd7b8f153efd872386f26fc10000872386f26fc10000830186a08080' as Hex
const baseL1Info =
  '0x7ef8f8a0871ec5fb6afe7e5ae950bbb4cfd7d7cb277b413e67da806d50834a814b14c9f494deaddeaddeaddeaddeaddeaddeaddeaddead00019442000000000000000000000000000000000000158080830f424080b8a4440a5e20000008dd00101c12000000000000000400000000681c941f0000000001566261000000000000000000000000000000000000000000000000000000005f629c020000000000000000000000000000000000000000000000000000000000000001937badfbcce566e0ba932a3f7659644aa0c6ef019541d3134a1d8cb9f84d45c70000000000000000000000005050f69a9786f081509234f1a7f4684b5e5b76c9' as Hex

describe('decodeDeposit', () => {
  test('default: an OP Sepolia user deposit, its fields and hash', () => {
    const deposit = decodeDeposit(hexToBytes(sepoliaDeposit), common)
    expect(bytesToHex(deposit.sourceHash)).toBe('0xdfd7ae78bf3c414cfaa77f13c0205c82eb9365e217b2daa3448c3156b69b27ac')
    expect(deposit.from.toString()).toBe('0x778f2146f48179643473b82931c4cd7b8f153efd')
    expect(deposit.to?.toString()).toBe('0x778f2146f48179643473b82931c4cd7b8f153efd')
    expect(deposit.mint).toBe(10n ** 16n)
    expect(deposit.value).toBe(10n ** 16n)
    expect(deposit.gasLimit).toBe(100_000n)
    expect(deposit.isSystemTx).toBe(false)
    expect(deposit.data).toHaveLength(0)
    expect(bytesToHex(deposit.hash())).toBe('0xbf8b5f08c43e4b860715cd64fc0849bbce0d0ea20a76b269e7bc8886d112fca7')
  })

  test('default: a Base L1 attributes deposit encodes back byte for byte', () => {
    const deposit = decodeDeposit(hexToBytes(baseL1Info), common)
    expect(deposit.mint).toBe(0n)
    expect(deposit.gasLimit).toBe(1_000_000n)
    expect(deposit.data).toHaveLength(164)
    expect(bytesToHex(deposit.serialize())).toBe(baseL1Info)
    expect(bytesToHex(deposit.hash())).toBe('0xa68157af562dec44406bf9334381cf7e46aab0dd3f6495d99644e02b6fed6f09')
  })

  test('default: a creation has no `to`, and a system transaction says so', () => {
    const made = new DepositTransaction(
      {
        sourceHash: new Uint8Array(32).fill(7),
        from: new Address(new Uint8Array(20).fill(1)),
        to: undefined,
        mint: 0n,
        value: 5n,
        gasLimit: 90_000n,
        isSystemTx: true,
        data: Uint8Array.of(0x60, 0x00),
      },
      common,
    )
    const again = decodeDeposit(made.serialize(), common)
    expect(again.to).toBeUndefined()
    expect(again.isSystemTx).toBe(true)
    expect(again.value).toBe(5n)
    expect(bytesToHex(again.hash())).toBe(bytesToHex(made.hash()))
  })

  test('error: another type, a wrong field count, a short address, a non-canonical integer', () => {
    expect(() => decodeDeposit(hexToBytes('0x02c0'), common)).toThrow('not a deposit transaction: type 0x2')
    expect(() => decodeDeposit(hexToBytes('0x7ec0'), common)).toThrow('RLP list')
    const shortFrom = sepoliaDeposit.replace('94778f2146f48179643473b82931c4cd7b8f153efd94', '93778f2146f48179643473b82931c4cd7b8f153e94')
    expect(() => decodeDeposit(hexToBytes(`0x7ef860${shortFrom.slice(8)}` as Hex), common)).toThrow("deposit's from has 20 bytes")
    // gas 0x0186a0 written with a leading zero byte: 0x84 00 01 86 a0.
    const paddedGas = sepoliaDeposit.replace('830186a0', '840001 86a0'.replace(' ', ''))
    expect(() => decodeDeposit(hexToBytes(`0x7ef862${paddedGas.slice(8)}` as Hex), common)).toThrow("deposit's gas is not a canonical integer")
  })
})

describe('sourceHashOf', () => {
  test('default: the L1 attributes domain, as a real Base block derives it', () => {
    const l1Hash = hexToBytes('0x937badfbcce566e0ba932a3f7659644aa0c6ef019541d3134a1d8cb9f84d45c7')
    expect(bytesToHex(sourceHashOf(SourceDomain.l1Info, l1Hash, 4n))).toBe('0x871ec5fb6afe7e5ae950bbb4cfd7d7cb277b413e67da806d50834a814b14c9f4')
  })

  test('default: the user-deposit domain differs from it for the same inputs', () => {
    const l1Hash = hexToBytes('0x937badfbcce566e0ba932a3f7659644aa0c6ef019541d3134a1d8cb9f84d45c7')
    expect(bytesToHex(sourceHashOf(SourceDomain.userDeposit, l1Hash, 4n))).not.toBe(bytesToHex(sourceHashOf(SourceDomain.l1Info, l1Hash, 4n)))
  })
})
