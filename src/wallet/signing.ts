/**
 * Message signing, as MetaMask answers it: personal_sign (EIP-191), eth_signTypedData_v4 (EIP-712) and, when the
 * developer turns it on, eth_sign. Each goes through the approval policy under its own key. A signature is valid
 * beyond this chain (a login, a permit signed with an imported key), so a browser origin the developer has not said
 * they trust waits for a click even under the approve policy.
 */
import { InvalidInputError } from '../chain/errors.ts'
import { UnsupportedRequestError } from './errors.ts'

import type { Hex } from '../hex.ts'
import type { Caller, WalletCore } from './core.ts'

/** EIP-712 typed data as eth_signTypedData_v4 takes it. */
export type TypedData = {
  types: Record<string, { name: string; type: string }[]>
  primaryType: string
  domain: Record<string, unknown>
  message: Record<string, unknown>
}

export type Signing = {
  personalSign(caller: Caller, message: string, address: Hex): Promise<Hex>
  signTypedData(caller: Caller, address: Hex, typedData: string | Record<string, unknown>): Promise<Hex>
  ethSign(caller: Caller, address: Hex, hash: Hex): Promise<Hex>
}

const HEX_DATA = /^0x([0-9a-fA-F]{2})*$/

export function createSigning(core: WalletCore, options: { enableEthSign: boolean }): Signing {
  /** Asks the user, once the request is known to be valid: no one approves what cannot be signed. */
  async function approvedSigner(caller: Caller, key: 'personal_sign' | 'eth_signTypedData_v4' | 'eth_sign', params: unknown[], address: Hex) {
    await core.approve(key, caller, key, params, { prompt: core.untrusted(caller) })
    return core.signer(address)
  }

  return {
    async personalSign(caller, message, address) {
      core.authorize(caller, address)
      const signer = await approvedSigner(caller, 'personal_sign', [message, address], address)
      // MetaMask signs hex as the bytes it spells, and any other string as its UTF-8 text.
      return signer.signMessage({ message: HEX_DATA.test(message) ? { raw: message as Hex } : message })
    },

    async signTypedData(caller, address, given) {
      core.authorize(caller, address)
      const typedData = await parseTypedData(given, core.chainIdHex)
      const signer = await approvedSigner(caller, 'eth_signTypedData_v4', [address, given], address)
      return signer.signTypedData(typedData as never)
    },

    async ethSign(caller, address, hash) {
      // Off by default, as in MetaMask, which answers as if the method did not exist: it signs any 32 bytes, a
      // transaction's hash among them, and a dApp can show none of that to the user.
      if (!options.enableEthSign) throw new UnsupportedRequestError('eth_sign')
      if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new InvalidInputError('eth_sign signs a 32-byte hash', { input: 'hash' })
      core.authorize(caller, address)
      const signer = await approvedSigner(caller, 'eth_sign', [address, hash], address)
      return signer.sign({ hash })
    },
  }
}

/**
 * eth_signTypedData_v4's data: a JSON text or an object, with the four members EIP-712 needs. A domain that names a
 * chain must name this one, as MetaMask requires.
 */
async function parseTypedData(given: string | Record<string, unknown>, chainIdHex: Hex): Promise<TypedData> {
  let value: unknown = given
  if (typeof given === 'string') {
    try {
      value = JSON.parse(given)
    } catch {
      throw new InvalidInputError('typed data is not valid JSON', { input: 'typedData' })
    }
  }
  const data = value as Partial<TypedData> | null
  const isObject = (member: unknown) => typeof member === 'object' && member !== null && !Array.isArray(member)
  if (!isObject(data)) throw new InvalidInputError('typed data must be an object', { input: 'typedData' })
  for (const member of ['types', 'domain', 'message'] as const) {
    if (!isObject(data![member])) throw new InvalidInputError(`typed data needs "${member}", an object`, { input: 'typedData' })
  }
  if (typeof data!.primaryType !== 'string' || data!.types![data!.primaryType] === undefined) {
    throw new InvalidInputError('typed data needs "primaryType", one of its types', { input: 'typedData' })
  }
  const chainId = data!.domain!.chainId
  if (chainId !== undefined && chainId !== null) {
    let given: bigint
    try {
      given = BigInt(chainId as string | number)
    } catch {
      throw new InvalidInputError(`domain.chainId ${JSON.stringify(chainId)} is not a number`, { input: 'typedData' })
    }
    if (given !== BigInt(chainIdHex)) {
      throw new InvalidInputError(`Provided chainId "${given}" must match the active chainId "${BigInt(chainIdHex)}"`)
    }
  }
  // The message must fit its types: hashing it checks that, as signing would, before anyone is asked.
  const { EIP712Domain: _domain, ...types } = data!.types!
  const typedData = { ...(data as TypedData), types }
  // viem's utilities load with the first signature, as its accounts do (wallet/core.ts).
  const { hashTypedData } = await import('viem/utils')
  try {
    hashTypedData(typedData as never)
  } catch (error) {
    throw new InvalidInputError(`${error instanceof Error ? error.message.split('\n')[0] : error}`, { input: 'typedData' })
  }
  return typedData
}
