import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import type { Hex } from '../../hex.ts'
import type { Log } from '../types.ts'
import type { ExecutionHooks } from './executor.ts'

/** ERC-7528's address for ether, which eth_simulateV1's `traceTransfers` logs ether transfers as. */
const ETHER = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee' as Hex
/** keccak256("Transfer(address,address,uint256)"), the ERC-20 event the transfer logs take. */
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef' as Hex

const word = (value: bigint): Hex => `0x${value.toString(16).padStart(64, '0')}`
const topicOf = (address: string): Hex => `0x${address.slice(2).padStart(64, '0')}` as Hex

/** A log as a simulated call reports it, with its index among every log the block's calls emitted. */
export type IndexedLog = Log & { index: number }

/**
 * The logs of a simulated block's calls, as geth's simulation collects them: each where it is emitted, a failed
 * frame's dropped with it, and, with `traceTransfers`, an ERC-7528 Transfer log for every call that moves ether
 * (a delegate call moves none). Indexes count every log emitted in the block, dropped ones included, as geth's do.
 */
export function createSimulationLogs(traceTransfers: boolean) {
  let count = 0
  /** Per open frame, its logs and those of the sub-calls it kept. */
  let frames: IndexedLog[][] = []
  let kept: IndexedLog[] = []
  /** Transfers into a creation, whose address is known only when it ends. */
  let creations: (IndexedLog | undefined)[] = []

  const capture = (log: Log): IndexedLog => {
    const indexed = { ...log, index: count++ }
    frames.at(-1)!.push(indexed)
    return indexed
  }

  const hooks: ExecutionHooks = {
    beforeMessage(message: Message) {
      frames.push([])
      let transfer: IndexedLog | undefined
      if (traceTransfers && !message.delegatecall && message.value > 0n) {
        const to = message.to === undefined ? '0x' : message.to.toString()
        transfer = capture({ address: ETHER, topics: [TRANSFER_TOPIC, topicOf(message.caller.toString()), topicOf(to)], data: word(message.value) })
      }
      creations.push(message.to === undefined ? transfer : undefined)
    },
    step(step: InterpreterStep) {
      const name = step.opcode.name
      // A self-destruct moves the account's whole balance to its beneficiary: a transfer like a call's.
      if (name === 'SELFDESTRUCT' && traceTransfers && step.stack.length > 0 && step.account.balance > 0n) {
        const beneficiary = `0x${step.stack[step.stack.length - 1]!.toString(16).padStart(40, '0')}`
        capture({
          address: ETHER,
          topics: [TRANSFER_TOPIC, topicOf(step.address.toString()), topicOf(beneficiary)],
          data: word(step.account.balance),
        })
        return
      }
      if (!name.startsWith('LOG')) return
      const topics = Number(name.slice(3))
      const { stack, memory } = step
      if (stack.length < 2 + topics) return
      const offset = Number(stack[stack.length - 1]!)
      const size = Number(stack[stack.length - 2]!)
      const data = new Uint8Array(size)
      if (offset < memory.length) data.set(memory.subarray(offset, Math.min(offset + size, memory.length)))
      capture({
        address: step.address.toString() as Hex,
        topics: Array.from({ length: topics }, (_, i) => word(stack[stack.length - 3 - i]!)),
        data: `0x${Buffer.from(data).toString('hex')}` as Hex,
      })
    },
    afterMessage(result: EVMResult) {
      const logs = frames.pop()!
      const creation = creations.pop()
      if (creation !== undefined && result.createdAddress !== undefined) creation.topics[2] = topicOf(result.createdAddress.toString())
      const failed = result.execResult.exceptionError !== undefined
      if (frames.length === 0) kept = failed ? [] : logs
      else if (!failed) frames.at(-1)!.push(...logs)
    },
  }

  return {
    hooks,
    /** Starts the next call. */
    reset() {
      frames = []
      kept = []
      creations = []
    },
    /** The logs the call just run kept, in the order it emitted them. */
    logs: (): IndexedLog[] => kept,
  }
}
