import { bytesToHex } from '@ethereumjs/util'

import { EMPTY_BLOOM } from '../blocks/types.ts'
import { isDeposit } from '../opstack/deposit.ts'

import type { RunTxResult } from '@ethereumjs/vm'
import type { ChainTransaction } from '../opstack/deposit.ts'
import type { RollupRunResult } from '../opstack/run.ts'
import type { Hex } from '../../hex.ts'
import type { BlockEnv, Receipt } from '../types.ts'

/** A transaction's receipt, from what runTx reports of it (and the console.log calls it made, when collected). */
export function toReceipt(result: RunTxResult | RollupRunResult, tx: ChainTransaction, env: BlockEnv, consoleCalls?: Hex[]): Receipt {
  const receipt = result.receipt as RunTxResult['receipt'] & { status?: 0 | 1; stateRoot?: Uint8Array; blobGasPrice?: bigint }
  const baseFee = env.baseFeePerGas ?? 0n
  const { depositNonce, l1Fee } = result as RollupRunResult
  let effectiveGasPrice: bigint
  if (isDeposit(tx)) {
    effectiveGasPrice = 0n
  } else if ('maxFeePerGas' in tx) {
    const withTip = baseFee + tx.maxPriorityFeePerGas
    effectiveGasPrice = withTip < tx.maxFeePerGas ? withTip : tx.maxFeePerGas
  } else {
    effectiveGasPrice = (tx as { gasPrice: bigint }).gasPrice
  }
  const logs = result.execResult.logs ?? []
  const halt = result.execResult.exceptionError?.error
  const failure = halt === undefined ? undefined : { halt, data: bytesToHex(result.execResult.returnValue) as Hex }
  return {
    ...(receipt.stateRoot === undefined ? { status: receipt.status } : { root: bytesToHex(receipt.stateRoot) as Hex }),
    cumulativeGasUsed: receipt.cumulativeBlockGasUsed,
    gasUsed: result.totalGasSpent,
    logs: logs.map(([address, topics, data]) => ({
      address: bytesToHex(address) as Hex,
      topics: topics.map((topic) => bytesToHex(topic) as Hex),
      data: bytesToHex(data) as Hex,
    })),
    logsBloom: logs.length === 0 ? EMPTY_BLOOM : (bytesToHex(result.bloom.bitvector) as Hex),
    contractAddress: result.createdAddress === undefined ? null : (result.createdAddress.toString() as Hex),
    effectiveGasPrice,
    ...(result.blobGasUsed === undefined ? {} : { blobGasUsed: result.blobGasUsed, blobGasPrice: receipt.blobGasPrice }),
    ...(failure === undefined ? {} : { failure }),
    ...(consoleCalls === undefined ? {} : { consoleCalls }),
    ...(depositNonce === undefined ? {} : { depositNonce, depositReceiptVersion: 1 }),
    ...(l1Fee === undefined ? {} : { l1Fee }),
  }
}
