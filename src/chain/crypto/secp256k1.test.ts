import { ecrecover, hexToBytes } from '@ethereumjs/util'
import { keccak256, serializeTransaction } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'

import { nativeEcrecover } from './secp256k1.ts'

const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')

describe('nativeEcrecover', () => {
  const recover = nativeEcrecover()

  test('the addon loads here (it ships prebuilt in the npm package)', () => {
    expect(recover).toBeTypeOf('function')
  })

  test('recovers what @noble recovers, for typed (v 0/1) and EIP-155 (v 35+) signatures', async () => {
    const hash = keccak256(serializeTransaction({ type: 'eip1559', chainId: 31337, to: account.address, value: 1n }))
    const message = hexToBytes(hash)
    const signature = await account.sign({ hash })
    const r = hexToBytes(`0x${signature.slice(2, 66)}`)
    const s = hexToBytes(`0x${signature.slice(66, 130)}`)
    const yParity = BigInt(Number.parseInt(signature.slice(130), 16) - 27)
    expect(recover!(message, yParity, r, s)).toEqual(ecrecover(message, yParity, r, s))
    const v155 = yParity + 31337n * 2n + 35n
    expect(recover!(message, v155, r, s, 31337n)).toEqual(ecrecover(message, v155, r, s, 31337n))
  })

  test('error: a v that is no recovery id is refused, as @noble refuses it', () => {
    const zero = new Uint8Array(32).fill(1)
    expect(() => recover!(zero, 5n, zero, zero)).toThrow('Invalid signature v value')
  })
})
