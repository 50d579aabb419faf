import * as AbiFunction from 'ox/AbiFunction'
import * as AbiParameters from 'ox/AbiParameters'

import artifact from '../../contracts/BatchExecutor.json' with { type: 'json' }

import type { Hex } from '../hex.ts'

/**
 * The ERC-7821 batch executor that wallet accounts delegate to (EIP-7702) for atomic batches. It is in every dev
 * genesis at this fixed address; its source is contracts/BatchExecutor.sol.
 */
export const EXECUTOR_ADDRESS = '0x7821000000000000000000000000000000007821' as Hex
export const executorCode = artifact.deployedBytecode as Hex

// ERC-7821 modes: byte 0 = 0x01 (batch), byte 1 = 0x00 (revert on failure), bytes 6..9 = 0x78210001 (opData).
const BATCH_MODE = '0x0100000000000000000000000000000000000000000000000000000000000000'
const BATCH_WITH_OPDATA_MODE = '0x0100000000007821000100000000000000000000000000000000000000000000'

const callsParameter = {
  type: 'tuple[]',
  components: [
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'data', type: 'bytes' },
  ],
} as const

const execute = AbiFunction.fromAbi(artifact.abi, 'execute')

export type ExecutorCall = { to: Hex; value: bigint; data: Hex; gasLimit?: bigint }

/**
 * Calldata of `execute` for a batch. Per-call gas limits go in opData (0 = no limit), where the executor
 * guards each against the 63/64 rule so a call never runs on less than it was given.
 */
export function encodeExecute(calls: ExecutorCall[]): Hex {
  const plain = calls.map(({ to, value, data }) => ({ to, value, data }))
  const limited = calls.some((call) => call.gasLimit !== undefined)
  const executionData = limited
    ? AbiParameters.encode(
        [callsParameter, { type: 'bytes' }],
        [plain, AbiParameters.encode([{ type: 'uint256[]' }], [calls.map((call) => call.gasLimit ?? 0n)])],
      )
    : AbiParameters.encode([callsParameter], [plain])
  return AbiFunction.encodeData(execute, [limited ? BATCH_WITH_OPDATA_MODE : BATCH_MODE, executionData])
}
