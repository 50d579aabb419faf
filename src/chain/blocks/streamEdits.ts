/**
 * The test-control changes the flashblocks stream's next frame tells (ChainEdit), kept only while the stream has had a
 * reader throughout: a change of state no frame told (a block or flashblock nobody streamed, an edit nobody heard)
 * drops them, since a reader that comes later starts from a state that holds them and what followed them.
 */
import type { ChainEdit } from '../types.ts'

export type StreamEdits = {
  /** A test-control change was made. */
  changed(edit: ChainEdit): void
  /** State changed by a block or flashblock, which the stream told if it had a reader. */
  moved(): void
  /** The changes the frame going out now carries, oldest first; they are not kept after. */
  take(): ChainEdit[]
  /** The changes the next frame will carry, oldest first, left in place. */
  peek(): readonly ChainEdit[]
}

export function createStreamEdits(listening: () => boolean): StreamEdits {
  const edits: ChainEdit[] = []
  const moved = () => {
    if (!listening()) edits.length = 0
  }
  return {
    changed(edit) {
      moved()
      if (listening()) edits.push(edit)
    },
    moved,
    take: () => edits.splice(0),
    peek: () => edits.slice(),
  }
}
