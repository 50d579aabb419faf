import { RefusedError } from '../errors.ts'

import type { ChainOptions } from '../spec/config.ts'
import type { ChainStore } from '../storage/chainStore.ts'

/**
 * Whether the chain is an OP Stack chain: as asked, for a new data dir; as it was made, for one that holds a chain,
 * which cannot become one or stop being one (its genesis and every block say which it is).
 */
export function opStackOf(store: ChainStore, options: ChainOptions): boolean {
  const stored = store.getMeta('opStack')
  const asked = options.opStack === true
  if (store.getMeta('genesis') === undefined) {
    store.setMeta('opStack', asked ? 'true' : 'false')
    return asked
  }
  const holds = stored === 'true'
  if (holds !== asked && (stored !== undefined || asked)) {
    throw new RefusedError(
      holds
        ? 'the data dir holds an OP Stack chain: start it with --op-stack, or with --fresh'
        : 'the data dir holds a chain that is not an OP Stack chain: start it without --op-stack, or with --fresh',
    )
  }
  return holds
}

/** The options of a new OP Stack chain's genesis: its predeploys (0.7 MB of code, read only then) before any given. */
export async function withOpStackPredeploys(store: ChainStore, options: ChainOptions): Promise<ChainOptions> {
  if (store.getMeta('genesis') !== undefined) return options
  const { opStackPredeploys } = await import('./predeploys.ts')
  return { ...options, predeploys: { ...opStackPredeploys(), ...options.predeploys } }
}
