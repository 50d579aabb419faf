import { z } from 'zod'

import { toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'
import { formatBlock, formatLog } from '../format.ts'
import { block, callRequest, simulationBlockOverrides, simulationStateOverrides } from '../schemas.ts'

import type { BlockJSON, LogJSON } from '../format.ts'
import type { Hex } from '../../hex.ts'

type CallResultJSON = {
  returnData: Hex
  logs: LogJSON[]
  gasUsed: Hex
  maxUsedGas: Hex
  status: Hex
  error?: { code: number; message: string; data?: Hex }
}

const simulation = z.object({
  blockStateCalls: z.array(
    z.object({
      blockOverrides: simulationBlockOverrides.optional(),
      stateOverrides: simulationStateOverrides.optional(),
      calls: z.array(callRequest).optional(),
    }),
  ),
  traceTransfers: z.boolean().optional(),
  validation: z.boolean().optional(),
  returnFullTransactions: z.boolean().optional(),
})

/**
 * `({ blockStateCalls, validation?, returnFullTransactions? }, block = latest)`: calls run in simulated blocks on top of
 * the block (`pending`: on the pre-confirmed state), each block with its own state and block overrides; the answer is
 * each block, built with its real roots and hash, and each call's result. Refused calls fail the request with the
 * -380xx codes; a call that reverts or halts answers its error in its result.
 */
export const simulateV1 = defineMethod({
  name: 'eth_simulateV1',
  access: 'public',
  params: z.tuple([simulation, block.optional()]),
  handler: async ([options, given], { calls, node }): Promise<(BlockJSON & { calls: CallResultJSON[] })[]> => {
    const blocks = await calls.simulate(
      { blocks: options.blockStateCalls, validation: options.validation === true, traceTransfers: options.traceTransfers === true },
      given ?? node.defaultBlock,
    )
    return blocks.map(({ block: simulated, calls }) => ({
      ...formatBlock(simulated, options.returnFullTransactions === true),
      calls: calls.map((call) => ({
        returnData: call.returnData,
        logs: call.logs.map(formatLog),
        gasUsed: toQuantity(call.gasUsed),
        maxUsedGas: toQuantity(call.maxUsedGas),
        status: toQuantity(call.status),
        ...(call.error === undefined ? {} : { error: call.error }),
      })),
    }))
  },
})
