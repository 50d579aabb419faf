import { runBlock } from '@ethereumjs/vm'
import { bytesToHex, equalsBytes } from '@ethereumjs/util'

import { headerEnv } from '../blocks/env.ts'
import { setHardforkFor } from '../execution/executor.ts'
import { toReceipt } from './receipts.ts'
import { sealedWrites } from '../state/sealedWrites.ts'

import type { Block } from '@ethereumjs/block'
import type { RunBlockResult, VM } from '@ethereumjs/vm'
import type { SealedBlock } from '../blocks/types.ts'
import type { StateHistory } from '../state/history.ts'
import type { FlatStateManager } from '../state/stateManager.ts'
import type { StateTrie } from '../state/trie.ts'
import type { StateDiff } from '../state/types.ts'
import type { Hex } from '../../hex.ts'
import type { Receipt } from '../types.ts'

/**
 * Executes a block produced elsewhere (`--import`) on the head's state, moving the head's trie to its state, and
 * returns what sealing it takes: its senders, receipts and state writes. A block that is not the head's child or
 * fails to run throws, naming it.
 */
export async function executeBlock(
  block: Block,
  head: SealedBlock,
  parts: { vm: VM; stateManager: FlatStateManager; history: StateHistory; trie: StateTrie },
): Promise<{ senders: Hex[]; receipts: Receipt[]; diff: StateDiff }> {
  const { vm, stateManager, history, trie } = parts
  const number = block.header.number
  if (number !== head.number + 1n || !equalsBytes(block.header.parentHash, head.block.hash())) {
    throw new Error(`block ${number}: parent ${bytesToHex(block.header.parentHash)} is not the head (block ${head.number}, ${head.hash})`)
  }
  const env = headerEnv(block)
  setHardforkFor(vm.common, env)
  stateManager.reset(history.at(head.number))
  let result: RunBlockResult
  try {
    // Seals of imported proof-of-work blocks are not checked: test chains carry fake ones.
    result = await runBlock(vm, { block, skipBlockValidation: true, skipHeaderValidation: true, skipHardForkValidation: true })
  } catch (error) {
    throw new Error(
      `block ${number} (${bytesToHex(block.hash())}) does not execute to its header: ${error instanceof Error ? error.message.replace(/ \(.*$/s, '') : error}`,
    )
  }
  const writes = stateManager.publish()
  const roots = await trie.apply(writes, stateManager.base)
  const diff = sealedWrites([writes], history.at(head.number), stateManager.base, roots.storageRoots)
  const senders = block.transactions.map((tx) => tx.getSenderAddress().toString() as Hex)
  const receipts = result.results.map((txResult, i) => toReceipt(txResult, block.transactions[i]!, env))
  return { senders, receipts, diff }
}
