import { bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util'

import { CONSOLE_ADDRESS } from '../activity/consoleLog.ts'

import type { Message } from '@ethereumjs/evm'
import type { VM } from '@ethereumjs/vm'
import type { Hex } from '../../hex.ts'

/** The calls a transaction makes to console.sol's address, collected while the block producer runs it. */
export type ConsoleCalls = {
  /** A transaction starts: what earlier runs on the same EVM left is dropped. */
  start(): void
  /** The data of each console call since `start`, in order; undefined when there was none. */
  take(): Hex[] | undefined
}

/**
 * Listens to every message (call or creation, at any depth) the EVM runs, as the tracers hook its call events, and
 * keeps the data of those sent to console.sol's address. Any other message costs one comparison of 20 bytes, so a
 * transaction that never logs runs as fast as without the listener (bench/consoleLog.ts); and the block producer's
 * EVM has it only while the node logs (chain.ts).
 */
export function collectConsoleCalls(evm: VM['evm']): ConsoleCalls {
  const address = hexToBytes(CONSOLE_ADDRESS)
  let calls: Hex[] = []
  evm.events!.on('beforeMessage', (message: Message) => {
    if (message.to !== undefined && equalsBytes(message.to.bytes, address)) calls.push(bytesToHex(message.data) as Hex)
  })
  return {
    start() {
      if (calls.length > 0) calls = []
    },
    take() {
      if (calls.length === 0) return undefined
      const taken = calls
      calls = []
      return taken
    },
  }
}
