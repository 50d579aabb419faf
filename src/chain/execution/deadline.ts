import { replaceOpcodeEntries } from '../ethereumjs/opcodeTable.ts'

import type { EVMInterface } from '@ethereumjs/evm'
import type { OpcodeHandler } from '../ethereumjs/opcodeTable.ts'

/**
 * Thrown out of a run that passed its view's deadline (ExecutionView.deadline): the run is dropped, not answered,
 * and whoever set the deadline runs it elsewhere.
 */
export class DeadlinePassedError extends Error {
  constructor() {
    super('the run passed its deadline')
  }
}

/** The clock is read every this many jumps: every loop jumps, and a reading costs about 30 ns. */
const JUMPS_PER_READING = 256

/** The deadline of the run an EVM is making now, as performance.now(); Infinity for none. */
export type RunDeadline = { at: number }

/**
 * Makes JUMP and JUMPI of `evm` check the deadline, so that a run past it throws DeadlinePassedError at its next
 * jump. Without a deadline a jump costs one comparison more.
 */
export function watchDeadline(evm: EVMInterface): RunDeadline {
  const deadline: RunDeadline = { at: Number.POSITIVE_INFINITY }
  let jumps = 0
  const checked =
    (handler: OpcodeHandler): OpcodeHandler =>
    (runState, common) => {
      if (deadline.at !== Number.POSITIVE_INFINITY && ++jumps % JUMPS_PER_READING === 0 && performance.now() > deadline.at) {
        throw new DeadlinePassedError()
      }
      return handler(runState, common)
    }
  replaceOpcodeEntries(evm, (entry) =>
    entry.opcodeInfo.name === 'JUMP' || entry.opcodeInfo.name === 'JUMPI' ? { ...entry, opHandler: checked(entry.opHandler) } : entry,
  )
  return deadline
}
