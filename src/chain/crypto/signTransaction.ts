import { createTx } from '@ethereumjs/tx'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'

import type { Common } from '@ethereumjs/common'
import type { TypedTxData } from '@ethereumjs/tx'
import type { Hex } from '../../hex.ts'
import type { UnsignedTransaction } from '../types.ts'

const TYPES = { legacy: 0, eip2930: 1, eip1559: 2, eip7702: 4 } as const

const quantity = (value: number | bigint): Hex => `0x${value.toString(16)}`

/**
 * `transaction` signed with `privateKey` and encoded (EIP-2718) as `common`'s rules have it: EIP-155 for a legacy
 * one. The signature is `common`'s ecsign (the chain's: libsecp256k1, crypto/secp256k1.ts).
 */
export function signTransaction(common: Common, transaction: UnsignedTransaction, privateKey: Hex): Hex {
  const data = {
    type: TYPES[transaction.type],
    nonce: BigInt(transaction.nonce),
    gasLimit: transaction.gas,
    to: transaction.to ?? undefined,
    value: transaction.value ?? 0n,
    data: transaction.data ?? '0x',
    ...(transaction.type === 'legacy'
      ? {}
      : { chainId: BigInt(transaction.chainId), accessList: transaction.accessList?.map((entry) => ({ ...entry })) ?? [] }),
    ...(transaction.gasPrice === undefined ? {} : { gasPrice: transaction.gasPrice }),
    ...(transaction.maxFeePerGas === undefined
      ? {}
      : { maxFeePerGas: transaction.maxFeePerGas, maxPriorityFeePerGas: transaction.maxPriorityFeePerGas ?? 0n }),
    ...(transaction.authorizationList === undefined
      ? {}
      : {
          authorizationList: transaction.authorizationList.map((authorization) => ({
            chainId: quantity(authorization.chainId),
            address: authorization.address,
            nonce: quantity(authorization.nonce),
            yParity: quantity(authorization.yParity),
            r: authorization.r,
            s: authorization.s,
          })),
        }),
  } as TypedTxData
  // Signing refuses nothing: the pool's door does, in the chain's words and order (the block's gas limit before
  // EIP-7825's cap, as geth). ethereumjs checks both size limits when it builds a transaction, so it builds with the
  // rules before EIP-7825 (which encode every type signed here the same) and with no initcode limit.
  const tx = createTx(data, { common: withoutTxChecks(common), allowUnlimitedInitCodeSize: true })
  return bytesToHex(tx.sign(hexToBytes(privateKey)).serialize()) as Hex
}

const beforeTxGasCap = new WeakMap<Common, Common>()

/** `common`, or where EIP-7825 is active a copy at Prague, the fork before its cap (kept per common). */
function withoutTxChecks(common: Common): Common {
  if (!common.isActivatedEIP(7825)) return common
  let copy = beforeTxGasCap.get(common)
  if (copy === undefined) {
    copy = common.copy()
    copy.setHardfork('prague')
    beforeTxGasCap.set(common, copy)
  }
  return copy
}
