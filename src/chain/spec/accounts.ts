import { createHmac, pbkdf2Sync } from 'node:crypto'

import { HDKey } from '@scure/bip32'
import { validateMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { bytesToHex, hexToBytes, privateToAddress } from '@ethereumjs/util'

import { keccak256 } from '../crypto/keccak.ts'
import { nativeKeys } from '../crypto/secp256k1.ts'

import type { NativeKeys } from '../crypto/secp256k1.ts'
import type { Hex } from '../../hex.ts'

export type DevAccount = { address: Hex; privateKey: Hex }

export function keyAccount(privateKey: Hex): DevAccount {
  return { address: bytesToHex(privateToAddress(hexToBytes(privateKey))) as Hex, privateKey }
}

/**
 * BIP-44 accounts m/44'/60'/0'/0/i, as anvil and Hardhat derive them. `keys`: libsecp256k1 when it loads; without
 * it, @scure/bip32 and @noble derive them.
 */
export function deriveAccounts(mnemonic: string, count: number, keys: NativeKeys | undefined = nativeKeys()): DevAccount[] {
  if (!validateMnemonic(mnemonic, wordlist)) throw new Error('the mnemonic is not a valid English BIP-39 mnemonic')
  // BIP-39's seed, with Node's native PBKDF2: the same bytes as @scure/bip39's, in a fraction of the start-up time.
  const seed = pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512')
  if (keys !== undefined) return deriveNatively(seed, count, keys)
  const parent = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0")
  return Array.from({ length: count }, (_, index) => keyAccount(bytesToHex(parent.deriveChild(index).privateKey!) as Hex))
}

const HARDENED = 0x80000000

type ExtendedKey = { key: Uint8Array; chainCode: Uint8Array }

/**
 * The same accounts through libsecp256k1 and Node's HMAC: @noble's first point multiplication in a process builds its
 * tables, and the 25 this path takes in pure JavaScript (each level's public key, then each account's) were about
 * 35 ms of every start.
 */
function deriveNatively(seed: Uint8Array, count: number, keys: NativeKeys): DevAccount[] {
  // BIP-32's master key, then CKDpriv down the path.
  const master = split(createHmac('sha512', 'Bitcoin seed').update(seed).digest())
  const parent = [44 + HARDENED, 60 + HARDENED, HARDENED, 0].reduce((key, index) => child(key, index, keys), master)
  return Array.from({ length: count }, (_, index) => {
    const { key } = child(parent, index, keys)
    const address = keccak256(keys.publicKeyCreate(key, false).subarray(1)).subarray(12)
    return { address: bytesToHex(address) as Hex, privateKey: bytesToHex(key) as Hex }
  })
}

/** CKDpriv (BIP-32): a hardened child from the parent's key, another from its compressed public key. */
function child(parent: ExtendedKey, index: number, keys: NativeKeys): ExtendedKey {
  const data = new Uint8Array(37)
  if (index >= HARDENED) data.set(parent.key, 1)
  else data.set(keys.publicKeyCreate(parent.key, true))
  new DataView(data.buffer).setUint32(33, index)
  const derived = split(createHmac('sha512', parent.chainCode).update(data).digest())
  // parse256(IL) + k mod n. BIP-32 skips an index whose IL is not below n or whose key is zero, which happens with
  // probability below 2^-127: the addon's error stands instead.
  return { key: keys.privateKeyTweakAdd(Uint8Array.from(parent.key), derived.key), chainCode: derived.chainCode }
}

function split(digest: Uint8Array): ExtendedKey {
  return { key: digest.subarray(0, 32), chainCode: digest.subarray(32) }
}
