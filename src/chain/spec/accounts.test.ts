import { describe, expect, test } from 'vitest'

import { privateKeyToAddress } from 'viem/accounts'

import { nativeKeys } from '../crypto/secp256k1.ts'
import { deriveAccounts } from './accounts.ts'

const DEV_MNEMONIC = 'test test test test test test test test test test test junk'
const OTHER_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

describe('deriveAccounts', () => {
  test("the dev mnemonic's first accounts are anvil's and Hardhat's", () => {
    const [first, second] = deriveAccounts(DEV_MNEMONIC, 2)
    expect(first).toEqual({
      address: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
    })
    expect(second!.address).toBe('0x70997970c51812dc3a010c7d01b50e0d17dc79c8')
  })

  test('libsecp256k1 derives the keys and addresses @scure/bip32 and @noble derive, account for account', () => {
    const keys = nativeKeys()
    expect(keys).toBeDefined()
    for (const mnemonic of [DEV_MNEMONIC, OTHER_MNEMONIC]) {
      const native = deriveAccounts(mnemonic, 25, keys)
      expect(native).toEqual(deriveAccounts(mnemonic, 25, undefined))
      expect(new Set(native.map((account) => account.privateKey)).size).toBe(25)
      // The address as a third library computes it from the key.
      for (const account of native) expect(privateKeyToAddress(account.privateKey).toLowerCase()).toBe(account.address)
    }
  })

  test('error: a mnemonic that is not BIP-39 English is refused, whichever derivation', () => {
    for (const keys of [nativeKeys(), undefined]) {
      expect(() => deriveAccounts('test test test', 1, keys)).toThrow('the mnemonic is not a valid English BIP-39 mnemonic')
    }
  })
})
