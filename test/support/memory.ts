import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

// The suites that measure memory run the node in their own process, so they measure theirs.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/**
 * What the process holds after a full collection: the JS heap and the Buffers outside it. Not its RSS, which moves
 * with the allocator and the collector's timing on a busy machine.
 */
export function heldBytes(): number {
  gc()
  return liveBytes()
}

/** The JS heap and the Buffers outside it as they are now, garbage included (for a peak sampled while it grows). */
export function liveBytes(): number {
  const { heapUsed, external } = process.memoryUsage()
  return heapUsed + external
}
