import { haltReason } from '../../gethErrors.ts'
import { decodeRevertReason } from '../revert.ts'

import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import type { Hex } from '../../../hex.ts'
import type { TraceEnd, TraceStart, Tracer, TracerConfig } from './tracer.ts'

type CallLog = { address: Hex; topics: Hex[]; data: Hex; position: Hex }

/** A call frame in geth's callTracer order of fields. */
type CallFrame = {
  from: Hex
  gas: Hex
  gasUsed: Hex
  to?: Hex
  input: Hex
  output?: Hex
  error?: string
  revertReason?: string
  calls?: CallFrame[]
  logs?: CallLog[]
  value?: Hex
  type: string
}

type OpenFrame = { frame: CallFrame; failed: boolean; logs: CallLog[]; calls: CallFrame[]; create: boolean }

const quantity = (value: bigint): Hex => `0x${value.toString(16)}`
const hex = (bytes: Uint8Array): Hex => `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`

/** The call a message makes, in geth's words; ethereumjs marks delegate calls and creates, and keeps static mode. */
function typeOf(message: Message, parentStatic: boolean): string {
  if (message.to === undefined) return message.salt === undefined ? 'CREATE' : 'CREATE2'
  if (message.delegatecall) return 'DELEGATECALL'
  if (message.codeAddress !== undefined && !message.codeAddress.equals(message.to)) return 'CALLCODE'
  // A call made in a static frame inherits its mode, so only a call that enters static mode is known to be one.
  return message.isStatic && !parentStatic ? 'STATICCALL' : 'CALL'
}

/**
 * geth's callTracer: the tree of calls a transaction made, each with its gas, input, output and error, built from
 * the EVM's message events. `onlyTopCall` keeps the top frame alone; `withLog` adds each frame's logs, with their
 * position among its sub-calls, and drops the logs of frames that failed.
 */
export function createCallTracer(start: TraceStart, config: TracerConfig): Tracer {
  const onlyTopCall = config.onlyTopCall === true
  const withLog = config.withLog === true
  const stack: (OpenFrame & { isStatic: boolean })[] = []
  let depth = -1

  function beforeMessage(message: Message) {
    depth++
    if (depth === 0) {
      const frame: CallFrame = { from: start.from, gas: quantity(start.gas), gasUsed: '0x0', to: start.to, input: hex(start.input), type: start.type }
      stack.push({ frame, failed: false, logs: [], calls: [], create: start.type === 'CREATE', isStatic: message.isStatic })
      frame.value = quantity(start.value)
      return
    }
    if (onlyTopCall) return
    const parent = stack.at(-1)!
    const type = typeOf(message, parent.isStatic)
    const delegated = type === 'DELEGATECALL' || type === 'CALLCODE'
    const frame: CallFrame = {
      // A delegate call or callcode runs in its caller's context: geth names the caller as `from` and the code's
      // account as `to`.
      from: delegated ? (message.to!.toString() as Hex) : (message.caller.toString() as Hex),
      gas: quantity(message.gasLimit),
      gasUsed: '0x0',
      to: message.to === undefined ? undefined : ((delegated ? message.codeAddress! : message.to).toString() as Hex),
      input: hex(message.data),
      type,
    }
    if (type !== 'DELEGATECALL' && type !== 'STATICCALL') frame.value = quantity(message.value)
    stack.push({ frame, failed: false, logs: [], calls: [], create: message.to === undefined, isStatic: message.isStatic })
  }

  function close(open: OpenFrame, result: EVMResult | TraceEnd) {
    const { frame } = open
    const error = 'execResult' in result ? result.execResult.exceptionError?.error : result.error
    const output = 'execResult' in result ? result.execResult.returnValue : result.returnValue
    if ('execResult' in result && open.create && result.createdAddress !== undefined) frame.to = result.createdAddress.toString() as Hex
    if (error === undefined) {
      frame.output = hex(output)
    } else {
      open.failed = true
      frame.error = haltReason(error)
      if (open.create) frame.to = undefined
      if (error === 'revert' && output.length > 0) {
        frame.output = hex(output)
        const reason = decodeRevertReason(hex(output))
        if (reason !== undefined && output.length >= 4) frame.revertReason = reason
      }
    }
    if (open.calls.length > 0) frame.calls = open.calls
    if (open.logs.length > 0) frame.logs = open.logs
  }

  function afterMessage(result: EVMResult) {
    const level = depth--
    if (level === 0) {
      const top = stack[0]!
      if (top.create && result.createdAddress !== undefined) top.frame.to = result.createdAddress.toString() as Hex
      return
    }
    if (onlyTopCall) return
    const open = stack.pop()!
    open.frame.gasUsed = quantity(result.execResult.executionGasUsed)
    close(open, result)
    stack.at(-1)!.calls.push(order(open.frame))
  }

  /**
   * A LOG op, recorded where it is emitted, with its position among the frame's sub-calls so far (ethereumjs hands
   * logs over only with a frame's result, its sub-calls' mixed in). One whose frame then fails is dropped at the end.
   */
  function step(step: InterpreterStep) {
    const name = step.opcode.name
    if (!name.startsWith('LOG') || (onlyTopCall && step.depth > 0)) return
    const open = stack.at(-1)
    const { stack: words, memory } = step
    const count = Number(name.slice(3))
    if (open === undefined || words.length < 2 + count) return
    const offset = Number(words[words.length - 1]!)
    const size = Number(words[words.length - 2]!)
    const data = new Uint8Array(size)
    if (offset < memory.length) data.set(memory.subarray(offset, Math.min(offset + size, memory.length)))
    open.logs.push({
      address: step.address.toString() as Hex,
      topics: Array.from({ length: count }, (_, i) => `0x${words[words.length - 3 - i]!.toString(16).padStart(64, '0')}` as Hex),
      data: hex(data),
      position: quantity(BigInt(open.calls.length)),
    })
  }

  return {
    hooks: withLog ? { step, beforeMessage, afterMessage } : { beforeMessage, afterMessage },
    result(end) {
      const top = stack[0]
      if (top === undefined) return null
      top.frame.gasUsed = quantity(end.gasUsed)
      close(top, end)
      if (withLog) clearFailedLogs(top.frame, false)
      return order(top.frame)
    },
  }
}

/** geth drops the logs of a frame that failed, and of every frame under it: their effects were undone. */
function clearFailedLogs(frame: CallFrame, parentFailed: boolean) {
  const failed = parentFailed || frame.error !== undefined
  if (failed) delete frame.logs
  for (const call of frame.calls ?? []) clearFailedLogs(call, failed)
}

/** The frame with its fields in geth's order (its JSON encoder's), `value` before `type`. */
function order(frame: CallFrame): CallFrame {
  const { from, gas, gasUsed, to, input, output, error, revertReason, calls, logs, value, type } = frame
  return {
    from,
    gas,
    gasUsed,
    ...(to === undefined ? {} : { to }),
    input,
    ...(output === undefined ? {} : { output }),
    ...(error === undefined ? {} : { error }),
    ...(revertReason === undefined ? {} : { revertReason }),
    ...(calls === undefined ? {} : { calls }),
    ...(logs === undefined ? {} : { logs }),
    ...(value === undefined ? {} : { value }),
    type,
  }
}
