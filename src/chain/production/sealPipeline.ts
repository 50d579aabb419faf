import type { SealedBlock } from '../blocks/types.ts'
import type { StateDiff } from '../state/types.ts'

/**
 * Where a sealed block goes, in this order, each stage once:
 * 1. `history`: its state writes become the head's state, and the history's followers (the workers' replicas, the
 *    answer cache) take them.
 * 2. `store`: the block, its receipts and its state writes are written in one transaction.
 * 3. `blocks`: it becomes the head. A reader that finds it there finds its state in the history, and the sealed
 *    blocks can read it back from the store once they let it go.
 * 4. `events`: it is announced, last, so that a listener that reads what it was told of finds it.
 */
export const SEAL_STAGES = ['history', 'store', 'blocks', 'events'] as const

export type SealStage = (sealed: SealedBlock, diff: StateDiff) => void

/** The one way a sealed block leaves the producer. */
export type SealPipeline = {
  seal(sealed: SealedBlock, diff: StateDiff): void
}

/** Each stage is required, and runs in SEAL_STAGES' order, whatever the order it is given in. */
export function createSealPipeline(stages: Record<(typeof SEAL_STAGES)[number], SealStage>): SealPipeline {
  const ordered = SEAL_STAGES.map((name) => stages[name])
  return {
    seal(sealed, diff) {
      for (const stage of ordered) stage(sealed, diff)
    },
  }
}
