import { replaceOpcodeEntries } from '../ethereumjs/opcodeTable.ts'

import type { EVMInterface } from '@ethereumjs/evm'
import type { OpcodeEntry, OpcodeHandler as Handler } from '../ethereumjs/opcodeTable.ts'

/**
 * Opcodes through which a run can see how much gas it was given, so that a smaller gas limit could take another
 * path: GAS reads it, and every call or create forwards at most 63/64 of it (EIP-150), so what the callee gets,
 * and whether it succeeds, moves with the limit.
 */
const GAS_READING_OPCODES = new Set([
  'GAS',
  'CALL',
  'CALLCODE',
  'DELEGATECALL',
  'STATICCALL',
  'CREATE',
  'CREATE2',
  // EOF (EIP-7069, EIP-7620), should an EVM table carry them.
  'EXTCALL',
  'EXTDELEGATECALL',
  'EXTSTATICCALL',
  'EOFCREATE',
])

/** A priced run pays gas limit × price up front, so the sender's balance that these read moves with the limit. */
const BALANCE_OPCODES = new Set(['BALANCE', 'SELFBALANCE'])

/**
 * Watches the runs of one EVM for whatever could make them depend on their gas limit, so that one successful run
 * of an estimate can prove its own minimum. A run that read no gas, made no call and no create (and, priced, read
 * no balance) takes the same path under any limit that covers the gas it consumed, with one exception: EIP-2200
 * fails an SSTORE outright when 2300 gas or less is left, so every SSTORE also needs more than that left at the
 * point it runs.
 */
export type GasProbe = {
  /** Starts watching a new run; `priced` says whether it pays for gas. */
  start(priced: boolean): void
  /**
   * After a successful run with limit `gasLimit` that consumed `gasConsumed` before refunds: the least limit
   * under which it provably runs the same way, or undefined when it looked at its gas and only a rerun can tell.
   */
  sufficientGas(gasLimit: bigint, gasConsumed: bigint): bigint | undefined
}

export function attachGasProbe(evm: EVMInterface): GasProbe {
  let priced = false
  let readsGas = false
  /** The least gas left at any SSTORE of the run: where the EIP-2200 stipend check came closest to failing. */
  let leastLeftAtSstore: bigint | undefined

  // Called with the handlers' own arguments, not rest parameters: these run on every SSTORE and every call.
  const readGas =
    (handler: Handler): Handler =>
    (runState, second, third) => {
      readsGas = true
      return handler(runState, second, third)
    }
  const readBalance =
    (handler: Handler): Handler =>
    (runState, second, third) => {
      if (priced) readsGas = true
      return handler(runState, second, third)
    }
  const chargeSstore =
    (handler: Handler): Handler =>
    (runState, second, third) => {
      const left = runState.interpreter.getGasLeft()
      if (leastLeftAtSstore === undefined || left < leastLeftAtSstore) leastLeftAtSstore = left
      return handler(runState, second, third)
    }

  /** The entry with one of its handlers wrapped, in the entry the interpreter uses on a synchronous state too. */
  function wrapEntry(entry: OpcodeEntry, field: 'opHandler' | 'gasHandler', wrap: (handler: Handler) => Handler): OpcodeEntry {
    const handler = entry[field]
    if (handler === undefined) return entry
    const variant = entry.withSynchronousState
    return {
      ...entry,
      [field]: wrap(handler),
      withSynchronousState: variant === undefined ? undefined : wrapEntry(variant, field, wrap),
    }
  }

  replaceOpcodeEntries(evm, (entry) => {
    const { name } = entry.opcodeInfo
    if (GAS_READING_OPCODES.has(name)) return wrapEntry(entry, 'opHandler', readGas)
    if (BALANCE_OPCODES.has(name)) return wrapEntry(entry, 'opHandler', readBalance)
    if (name === 'SSTORE') return wrapEntry(entry, 'gasHandler', chargeSstore)
    return entry
  })

  return {
    start(isPriced) {
      priced = isPriced
      readsGas = false
      leastLeftAtSstore = undefined
    },
    sufficientGas(gasLimit, gasConsumed) {
      if (readsGas) return undefined
      // EIP-2200's stipend check came with Istanbul (ethereumjs ties it to the fork, not to an EIP number).
      if (leastLeftAtSstore === undefined || !evm.common.gteHardfork('istanbul')) return gasConsumed
      // No call was made, so every SSTORE ran in the outermost frame, where gas used so far = limit − gas left.
      const stipend = evm.common.param('sstoreSentryEIP2200Gas')
      const forSstores = gasLimit - leastLeftAtSstore + stipend + 1n
      return forSstores > gasConsumed ? forSstores : gasConsumed
    },
  }
}
