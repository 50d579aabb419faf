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
  return bytesToHex(createTx(data, { common }).sign(hexToBytes(privateKey)).serialize()) as Hex
}
