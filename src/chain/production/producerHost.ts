import type { Common } from '@ethereumjs/common'
import type { PendingSnapshot, SealedBlock } from '../blocks/types.ts'
import type { StateHistory } from '../state/history.ts'
import type { StateTrie } from '../state/trie.ts'
import type { BuiltFlashblock } from '../types.ts'
import type { BlockExecution } from './building.ts'
import type { ChainClock } from './clock.ts'
import type { BlockPlan } from './plan.ts'
import type { SealPipeline } from './sealPipeline.ts'
import type { Pool } from './txpool.ts'

/** The producer runs transactions as any block execution does (building.ts), and owns the rest of the chain's writes. */
export type ProducerHost = BlockExecution & {
  common: Common
  history: StateHistory
  trie: StateTrie
  pool: Pool
  blockGasLimit: () => bigint
  clock: ChainClock
  plan: BlockPlan
  head: () => SealedBlock
  /** Where each sealed block goes, with its state writes: the history, the store, the sealed blocks, the events. */
  pipeline: SealPipeline
  /** A flashblock was published; its transactions from `first` on are new. */
  published: (pending: PendingSnapshot, first: number) => void
  /**
   * Whether the flashblocks stream has listeners. Only then is each flashblock's block previewed (roots and hash
   * as if sealed after it), which costs a state-root preview per flashblock beside the growing tries.
   */
  streaming: () => boolean
  /** A flashblock for the stream, with its roots: previewed mid-block, the sealed block's for the last one. */
  flashblock: (flashblock: BuiltFlashblock) => void
  log: (line: string) => void
}
