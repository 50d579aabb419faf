import { bigIntToBytes, setLengthLeft } from '@ethereumjs/util'

import { haltReason } from '../../gethErrors.ts'

import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import type { TraceEnd, Tracer } from './tracer.ts'

/** geth's logger.Config: what each step records. */
export type StructLoggerOptions = {
  enableMemory?: boolean
  disableStack?: boolean
  disableStorage?: boolean
  enableReturnData?: boolean
  /** At most this many steps are recorded; 0 for all. */
  limit?: number
}

type StructLog = {
  pc: number
  op: string
  gas: number
  gasCost: number
  depth: number
  error?: string
  stack?: string[]
  returnData?: string
  memory?: string[]
  storage?: Record<string, string>
  refund?: number
}

const CALLS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL'])
/** Ops after which a frame has ended; any other last op means the code ran off its end. */
const ENDS_FRAME = new Set(['STOP', 'RETURN', 'REVERT', 'SELFDESTRUCT', 'INVALID'])
/** The 2300 gas a value transfer gives its callee for free, which geth leaves out of the CALL's cost. */
const CALL_STIPEND = 2300n

const word = (value: bigint): string => `0x${value.toString(16).padStart(64, '0')}`
const hex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')

/**
 * About the bytes one log takes as JSON: its fixed fields, and each stack item, memory word and storage slot with its
 * quotes and separators. Counted as the log is made, so that a trace can stop before it outgrows its limit.
 */
function sizeOf(log: StructLog): number {
  let size = 100 + log.op.length + (log.error?.length ?? 0) + (log.returnData?.length ?? 0)
  if (log.stack !== undefined) for (const item of log.stack) size += item.length + 3
  if (log.memory !== undefined) size += log.memory.length * 69
  if (log.storage !== undefined) size += Object.keys(log.storage).length * 138
  return size
}

/**
 * geth's default tracer (eth/tracers/logger): one entry per opcode with the gas before it and its cost, the stack
 * before it, and, as asked, memory, the return data of the frame's last call and the storage slots the contract has
 * read or written so far (on SLOAD and SSTORE only). A CALL's cost includes the gas it hands its callee, as geth's.
 * Memory words and storage are 0x-prefixed 32-byte hex, as the execution-apis spec and current geth write them.
 */
export function createStructLogger(options: StructLoggerOptions): Tracer {
  const logs: StructLog[] = []
  const limit = options.limit ?? 0
  /** Per contract, the slots seen so far this transaction. */
  const storage = new Map<string, Map<string, string>>()
  /** Per open frame, outermost first: the return data of its last completed call. */
  const returnData: Uint8Array[] = []
  /** The index of each open frame's last log, by depth, to mark the op a halt stopped at. */
  const lastLog: number[] = []
  /** About the bytes of JSON the logs so far take (sizeOf). */
  let bytes = 0

  async function step(step: InterpreterStep, resolve?: () => void) {
    try {
      if (limit !== 0 && logs.length >= limit) return
      const log: StructLog = {
        pc: step.pc,
        op: step.opcode.name,
        gas: Number(step.gasLeft),
        gasCost: Number(step.opcode.dynamicFee ?? BigInt(step.opcode.fee)),
        depth: step.depth + 1,
      }
      if (options.disableStack !== true) log.stack = step.stack.map((value) => `0x${value.toString(16)}`)
      if (options.enableReturnData === true) {
        const data = returnData.at(-1)
        if (data !== undefined && data.length > 0) log.returnData = `0x${hex(data)}`
      }
      if (options.enableMemory === true && step.memory.length > 0) {
        const memory: string[] = []
        for (let i = 0; i + 32 <= step.memory.length; i += 32) memory.push(`0x${hex(step.memory.subarray(i, i + 32))}`)
        log.memory = memory
      }
      if (options.disableStorage !== true && (log.op === 'SLOAD' || log.op === 'SSTORE')) {
        const contract = step.address.toString()
        let slots = storage.get(contract)
        if (slots === undefined) storage.set(contract, (slots = new Map()))
        const { stack } = step
        if (log.op === 'SLOAD' && stack.length >= 1) {
          const key = stack[stack.length - 1]!
          const value = await step.stateManager.getStorage(step.address, setLengthLeft(bigIntToBytes(key), 32))
          slots.set(word(key), `0x${hex(setLengthLeft(value, 32))}`)
          log.storage = Object.fromEntries(slots)
        } else if (log.op === 'SSTORE' && stack.length >= 2) {
          slots.set(word(stack[stack.length - 1]!), word(stack[stack.length - 2]!))
          log.storage = Object.fromEntries(slots)
        }
      }
      if (step.gasRefund > 0n) log.refund = Number(step.gasRefund)
      lastLog[step.depth] = logs.length
      logs.push(log)
      bytes += sizeOf(log)
    } finally {
      resolve?.()
    }
  }

  function beforeMessage(message: Message) {
    if (message.depth > 0) {
      // The op that made this message is the parent frame's last; a call's cost includes what it hands over.
      const caller = logs[lastLog[message.depth - 1] ?? -1]
      if (caller !== undefined && CALLS.has(caller.op)) {
        const stipend = message.value > 0n && (caller.op === 'CALL' || caller.op === 'CALLCODE') ? CALL_STIPEND : 0n
        caller.gasCost += Number(message.gasLimit - stipend)
      }
    }
    returnData.push(new Uint8Array(0))
    lastLog[message.depth] = -1
  }

  function afterMessage(result: EVMResult) {
    const depth = returnData.length - 1
    const error = result.execResult.exceptionError?.error
    const runState = result.execResult.runState
    const last = logs[lastLog[depth] ?? -1]
    // Code that runs off its end stops there: geth executes (and logs) the STOP it reads past the last byte.
    if (error === undefined && runState !== undefined && last !== undefined && !ENDS_FRAME.has(last.op) && (limit === 0 || logs.length < limit)) {
      const log: StructLog = { pc: runState.programCounter, op: 'STOP', gas: Number(runState.gasLeft), gasCost: 0, depth: depth + 1 }
      if (options.disableStack !== true) log.stack = runState.stack.getStack().map((value) => `0x${value.toString(16)}`)
      if (options.enableReturnData === true && returnData[depth]!.length > 0) log.returnData = `0x${hex(returnData[depth]!)}`
      if (options.enableMemory === true && runState.memoryWordCount > 0n) {
        const memory = runState.memory.read(0, Number(runState.memoryWordCount) * 32)
        log.memory = Array.from({ length: memory.length / 32 }, (_, i) => `0x${hex(memory.subarray(i * 32, i * 32 + 32))}`)
      }
      if (runState.gasRefund > 0n) log.refund = Number(runState.gasRefund)
      logs.push(log)
      bytes += sizeOf(log)
    }
    returnData.pop()
    // A halt (not a revert) stops at the op that failed, which geth marks.
    if (error !== undefined && error !== 'revert') {
      const failed = logs[lastLog[depth] ?? -1]
      if (failed !== undefined && failed.error === undefined) failed.error = haltReason(error)
    }
    if (depth > 0) returnData[depth - 1] = error === undefined || error === 'revert' ? result.execResult.returnValue : new Uint8Array(0)
  }

  return {
    size: () => bytes,
    hooks: { step, beforeMessage, afterMessage },
    result(end: TraceEnd) {
      const failed = end.error !== undefined
      const returnValue = failed && end.error !== 'revert' ? new Uint8Array(0) : end.returnValue
      return { gas: Number(end.gasUsed), failed, returnValue: `0x${hex(returnValue)}`, structLogs: logs }
    },
  }
}
