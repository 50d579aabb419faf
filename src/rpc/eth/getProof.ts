import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { ServerError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { address, block } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

const ZERO_HASH = `0x${'00'.repeat(32)}` as Hex

/**
 * A storage key as geth's eth_getProof reads it: up to 32 bytes of hex, `0x` optional, an odd digit count allowed.
 * The answer names it back as given when it was 32 bytes, and as a quantity otherwise (geth's compatibility rule).
 */
const proofKey = z.string().transform((value, context) => {
  const digits = value.replace(/^0x/i, '')
  if (!/^[0-9a-fA-F]*$/.test(digits)) {
    context.addIssue({ code: 'custom', message: 'hex string invalid' })
    return z.NEVER
  }
  const even = digits.length % 2 === 1 ? `0${digits}` : digits
  if (even.length > 64) {
    context.addIssue({ code: 'custom', message: 'hex string too long, want at most 32 bytes' })
    return z.NEVER
  }
  const slot = `0x${even.toLowerCase().padStart(64, '0')}` as Hex
  return { slot, output: even.length === 64 ? slot : toQuantity(BigInt(slot)) }
})

export type ProofJSON = {
  address: Hex
  accountProof: Hex[]
  balance: Hex
  codeHash: Hex
  nonce: Hex
  storageHash: Hex
  storageProof: { key: Hex; value: Hex; proof: Hex[] }[]
}

/**
 * `(address, storageKeys, block)`: EIP-1186 Merkle proofs of an account and its slots against the block's state
 * root, any block since genesis and `pending` too. An account that does not exist has zero hashes, as in geth. On a
 * fork, the upstream proves the blocks before the fork block; the others are refused.
 */
export const getProof = defineMethod({
  name: 'eth_getProof',
  access: 'public',
  upstream: { block: 2, scope: 'state' },
  params: z.tuple([address, z.array(proofKey), block]),
  handler: async ([account, keys, at], { state, fork }): Promise<ProofJSON> => {
    // A fork's state roots commit to what was written locally, never to the upstream's accounts beneath it.
    if (fork.info() !== undefined) {
      throw new ServerError(
        'eth_getProof on a fork proves the blocks before the fork block only (the upstream answers those): its own state roots cover local writes alone',
      )
    }
    const proof = await state.proof(
      account,
      keys.map((key) => key.slot),
      at,
    )
    return {
      address: proof.address,
      accountProof: proof.accountProof,
      balance: toQuantity(proof.account?.balance ?? 0n),
      codeHash: proof.account?.codeHash ?? ZERO_HASH,
      nonce: toQuantity(proof.account?.nonce ?? 0n),
      storageHash: proof.account?.storageHash ?? ZERO_HASH,
      storageProof: proof.storageProof.map((entry, i) => ({ key: keys[i]!.output, value: toQuantity(entry.value), proof: entry.proof })),
    }
  },
})
