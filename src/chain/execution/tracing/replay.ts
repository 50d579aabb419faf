import { Address, bigIntToBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { createVM, runTx } from '@ethereumjs/vm'

import { isDeposit } from '../../opstack/deposit.ts'
import { runRollupTransaction } from '../../opstack/run.ts'
import { systemContracts } from '../../spec/systemContracts.ts'
import { FlatStateManager } from '../../state/stateManager.ts'
import { createBlockchain, setHardforkFor } from '../executor.ts'

import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { StateDiff, StateReader } from '../../state/types.ts'
import type { BlockEnv } from '../../types.ts'
import type { BlockHashes, ExecutionHooks } from '../executor.ts'

/** A block to execute again: its environment, the header runTx reads it from, its transactions, and the state before it. */
export type ReplayBlock = {
  env: BlockEnv
  header: Block
  transactions: readonly TypedTransaction[]
  parent: StateReader
}

export type ReplayedTransaction = {
  gasUsed: bigint
  returnValue: Uint8Array
  error: string | undefined
  /** The state before the transaction, and what it wrote. */
  pre: StateReader
  writes: StateDiff
}

/**
 * The block-start system calls, as the block ran them: EIP-4788 stores the parent beacon root and EIP-2935 the parent
 * hash in their contracts' ring buffers, if the contracts have code.
 */
async function systemCalls(vm: Awaited<ReturnType<typeof createVM>>, env: BlockEnv) {
  const { common, stateManager } = vm
  if (common.isActivatedEIP(4788) && env.parentBeaconBlockRoot !== undefined) {
    const address = new Address(hexToBytes(systemContracts.beaconRoots!.address))
    if ((await stateManager.getCode(address)).length > 0) {
      const length = BigInt(common.param('historicalRootsLength'))
      const index = env.timestamp % length
      await stateManager.putStorage(address, setLengthLeft(bigIntToBytes(index), 32), bigIntToBytes(env.timestamp))
      await stateManager.putStorage(address, setLengthLeft(bigIntToBytes(index + length), 32), hexToBytes(env.parentBeaconBlockRoot))
    }
  }
  if (common.isActivatedEIP(2935)) {
    const address = new Address(hexToBytes(systemContracts.historyStorage!.address))
    if ((await stateManager.getCode(address)).length > 0) {
      const slot = (env.number - 1n) % BigInt(common.param('historyServeWindow'))
      await stateManager.putStorage(address, setLengthLeft(bigIntToBytes(slot), 32), hexToBytes(env.parentHash))
    }
  }
}

/**
 * Executes a block's transactions again from the state before the block, as geth's tracers replay it: the system
 * calls, then each transaction in order on what the previous ones left, with `hooksFor(i)` listening to transaction
 * i's run. Stops after transaction `last`. The replay's state is its own and is dropped afterwards.
 */
export async function replayBlock(
  block: ReplayBlock,
  options: {
    common: Common
    blockHashes: BlockHashes
    last: number
    hooksFor: (index: number) => ExecutionHooks | undefined
    onResult: (index: number, result: ReplayedTransaction) => void
  },
): Promise<void> {
  const stateManager = new FlatStateManager(block.parent)
  // Receipts before Byzantium carry a state root; a trace reports none, so none is computed.
  stateManager.computeStateRoot = async () => new Uint8Array(32)
  const common = options.common.copy()
  const vm = await createVM({ common, stateManager, blockchain: createBlockchain(options.blockHashes) })
  setHardforkFor(vm.common, block.env)
  await systemCalls(vm, block.env)
  const events = vm.evm.events!
  // An OP Stack block opens with its L1 attributes deposit: its transactions run by the rollup's rules.
  const rollup = block.transactions[0] !== undefined && isDeposit(block.transactions[0])
  let blockGasUsed = 0n
  for (let index = 0; index <= options.last && index < block.transactions.length; index++) {
    stateManager.publish()
    const pre = stateManager.base
    const hooks = options.hooksFor(index)
    if (hooks?.step !== undefined) events.on('step', hooks.step)
    if (hooks?.beforeMessage !== undefined) events.on('beforeMessage', hooks.beforeMessage)
    if (hooks?.afterMessage !== undefined) events.on('afterMessage', hooks.afterMessage)
    try {
      const run = { tx: block.transactions[index]!, block: block.header, blockGasUsed, skipHardForkValidation: true }
      const result = await (rollup ? runRollupTransaction(vm, run) : runTx(vm, run))
      blockGasUsed += result.blockGasSpent
      const writes = stateManager.publish()
      options.onResult(index, {
        gasUsed: result.totalGasSpent,
        returnValue: result.execResult.returnValue,
        error: result.execResult.exceptionError?.error,
        pre,
        writes,
      })
    } finally {
      if (hooks?.step !== undefined) events.off('step', hooks.step)
      if (hooks?.beforeMessage !== undefined) events.off('beforeMessage', hooks.beforeMessage)
      if (hooks?.afterMessage !== undefined) events.off('afterMessage', hooks.afterMessage)
    }
  }
}
