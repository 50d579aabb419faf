import { createRequire } from 'node:module'

import { calculateSigRecovery, concatBytes, setLengthLeft } from '@ethereumjs/util'

import type { CustomCrypto } from '@ethereumjs/common'

type Native = {
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed: boolean): Uint8Array
  ecdsaSign(message: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number }
  publicKeyCreate(privateKey: Uint8Array, compressed: boolean): Uint8Array
  /** Adds `tweak` to the key in place, mod n; throws when the tweak is not below n or the sum is zero. */
  privateKeyTweakAdd(privateKey: Uint8Array, tweak: Uint8Array): Uint8Array
}

/** The addon, or undefined where it cannot load (ethereumjs then keeps its own @noble implementation). */
function loadNative(): Native | undefined {
  try {
    // The addon itself, not the package's pure-JS fallback, which would be slower than @noble.
    return createRequire(import.meta.url)('secp256k1/bindings') as Native
  } catch {
    return undefined
  }
}

/**
 * Sender recovery through libsecp256k1 (the `secp256k1` package's prebuilt addon), about 25 times faster than the
 * pure-JS path here (58 µs against 1.4 ms, measured): it is most of what accepting a transaction costs. Undefined
 * where the addon cannot load, and ethereumjs keeps its own @noble implementation.
 */
export function nativeEcrecover(): CustomCrypto['ecrecover'] {
  const native = loadNative()
  if (native === undefined) return undefined
  return (msgHash, v, r, s, chainId) => {
    const recovery = calculateSigRecovery(v, chainId)
    if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value')
    const signature = concatBytes(setLengthLeft(r, 32), setLengthLeft(s, 32))
    // 65 bytes, 0x04 ‖ x ‖ y; ethereumjs wants x ‖ y.
    return native.ecdsaRecover(signature, Number(recovery), msgHash, false).subarray(1)
  }
}

/**
 * Transaction signing through libsecp256k1: the same RFC 6979 signature as @noble's (low s, deterministic nonce), in
 * 44 µs and with nothing to load or precompute, where @noble's first signature in a process spends about 20 ms
 * building its tables. In @noble's `recovered` form, which ethereumjs asks for: the recovery id, then r and s.
 */
export function nativeEcsign(): CustomCrypto['ecsign'] {
  const native = loadNative()
  if (native === undefined) return undefined
  const sign = (message: Uint8Array, privateKey: Uint8Array, options?: { extraEntropy?: unknown }) => {
    // Nothing here signs with extra entropy; a caller that does gets @noble's by leaving customCrypto unset.
    if (options?.extraEntropy !== undefined && options.extraEntropy !== false) throw new Error('the native signer signs deterministically only')
    const { signature, recid } = native.ecdsaSign(message, privateKey)
    return concatBytes(Uint8Array.of(recid), signature)
  }
  return sign as CustomCrypto['ecsign']
}

/** Key arithmetic through libsecp256k1, for deriving keys (spec/accounts.ts); undefined where the addon cannot load. */
export type NativeKeys = Pick<Native, 'publicKeyCreate' | 'privateKeyTweakAdd'>

export function nativeKeys(): NativeKeys | undefined {
  return loadNative()
}
