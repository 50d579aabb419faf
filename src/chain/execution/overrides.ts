import { KECCAK256_NULL, KECCAK256_RLP, bytesToHex, hexToBytes, unpadBytes } from '@ethereumjs/util'

import { InvalidInputError } from '../errors.ts'
import { keccak256 } from '../crypto/keccak.ts'
import { createOverlay } from '../state/overlay.ts'
import { createStateDiff } from '../state/types.ts'

import type { BlockEnv } from '../types.ts'
import type { ExecutionView } from './executor.ts'
import type { Hex } from '../../hex.ts'

/** geth's state override set: per account, fields to replace for one call or estimate. */
export type StateOverrides = Record<
  Hex,
  {
    balance?: bigint
    nonce?: bigint
    code?: Hex
    state?: Record<Hex, Hex>
    stateDiff?: Record<Hex, Hex>
    /** eth_simulateV1 only: the precompile at this address answers at that one instead, for one block. */
    movePrecompileToAddress?: Hex
  }
>

/** geth's block overrides: the environment fields a call may run under instead of the block's. */
export type BlockOverrides = {
  number?: bigint
  time?: bigint
  gasLimit?: bigint
  feeRecipient?: Hex
  prevRandao?: Hex
  baseFeePerGas?: bigint
  /** eth_simulateV1 only: the blob base fee (EIP-4844) the block charges and BLOBBASEFEE reads. */
  blobBaseFee?: bigint
}

export type Overrides = { state?: StateOverrides; block?: BlockOverrides }

/** The view a call sees with its overrides: a diff over the block's state, and a copy of its environment. */
export function withOverrides(view: ExecutionView, overrides: Overrides): ExecutionView {
  let { env, state } = view
  if (overrides.block !== undefined) {
    const block = overrides.block
    env = {
      ...env,
      number: block.number ?? env.number,
      timestamp: block.time ?? env.timestamp,
      gasLimit: block.gasLimit ?? env.gasLimit,
      coinbase: block.feeRecipient ?? env.coinbase,
      prevRandao: block.prevRandao ?? env.prevRandao,
      baseFeePerGas: block.baseFeePerGas ?? env.baseFeePerGas,
    } satisfies BlockEnv
  }
  if (overrides.state !== undefined) {
    const diff = createStateDiff()
    for (const [address, account] of Object.entries(overrides.state) as [Hex, StateOverrides[Hex]][]) {
      if (account.state !== undefined && account.stateDiff !== undefined) {
        throw new InvalidInputError(`account ${address} has both 'state' and 'stateDiff'`, { input: 'stateOverrides' })
      }
      const current = state.account(address) ?? { nonce: 0n, balance: 0n, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_RLP }
      let codeHash = current.codeHash
      if (account.code !== undefined) {
        const code = hexToBytes(account.code)
        codeHash = code.length === 0 ? KECCAK256_NULL : keccak256(code)
        if (code.length > 0) diff.code.set(bytesToHex(codeHash) as Hex, code)
      }
      diff.accounts.set(address, {
        ...current,
        nonce: account.nonce ?? current.nonce,
        balance: account.balance ?? current.balance,
        codeHash,
      })
      const slots = account.state ?? account.stateDiff
      if (slots !== undefined) {
        diff.storage.set(address, {
          // `state` replaces the whole storage; `stateDiff` patches it.
          cleared: account.state !== undefined,
          slots: new Map(Object.entries(slots).map(([slot, value]) => [slot as Hex, unpadBytes(hexToBytes(value))])),
        })
      }
    }
    state = createOverlay(diff, state)
  }
  return { env, state }
}
